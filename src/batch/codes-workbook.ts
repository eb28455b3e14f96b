/**
 * Reading an xlsx codes file back (for reconcile, refund batch and finding a batch's
 * id): the first sheet's cells as text, whether the cells are shared strings (as
 * write-excel-file, Excel and LibreOffice save them), inline strings or numbers. The
 * zip is opened with fflate (write-excel-file's own zip library); the sheet XML is
 * plain enough (one cell element per cell, values in `<v>` or `<t>`) to be read
 * without an XML library. Only the first worksheet is read.
 */
import { strFromU8, unzipSync } from 'fflate';
import { UsageError } from '../errors.js';

/** A file that starts as a zip archive does (every xlsx is one). */
export function isZip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML entities, then OOXML's `_xHHHH_` escapes of characters XML cannot hold. */
function unescapeText(text: string): string {
  return text
    .replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_m, e: string) =>
      e[0] === '#'
        ? String.fromCodePoint(
            e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)),
          )
        : (ENTITY[e.toLowerCase()] ?? _m),
    )
    .replace(/_x([0-9a-f]{4})_/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The text runs of a string item (`<si>` or `<is>`), phonetic hints left out. */
function textOf(xml: string): string {
  const plain = xml.replace(/<rPh\b[\s\S]*?<\/rPh>/g, '');
  let text = '';
  for (const m of plain.matchAll(/<t\b[^>]*?(?:\/>|>([\s\S]*?)<\/t>)/g)) text += unescapeText(m[1] ?? '');
  return text;
}

function columnIndex(ref: string): number {
  let n = 0;
  for (const ch of ref.toUpperCase()) {
    if (ch < 'A' || ch > 'Z') break;
    n = n * 26 + (ch.charCodeAt(0) - 64);
  }
  return n - 1;
}

function attribute(attrs: string, name: string): string | undefined {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1];
}

/** The first sheet as rows of cell texts (empty cells as ''). */
export function workbookRows(bytes: Uint8Array, where: string): string[][] {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (f) => f.name === 'xl/sharedStrings.xml' || /^xl\/worksheets\/[^/]+\.xml$/.test(f.name),
    });
  } catch (error) {
    throw new UsageError(`${where}: not a readable xlsx workbook (${(error as Error).message})`);
  }
  const sheets = Object.keys(files)
    .filter((n) => n.startsWith('xl/worksheets/'))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const sheetName = sheets[0];
  if (!sheetName) throw new UsageError(`${where}: the workbook has no worksheet`);
  const shared: string[] = [];
  const sst = files['xl/sharedStrings.xml'];
  if (sst)
    for (const m of strFromU8(sst).matchAll(/<si\b[^>]*>([\s\S]*?)<\/si>/g)) shared.push(textOf(m[1] ?? ''));
  const xml = strFromU8(files[sheetName] as Uint8Array);
  const rows: string[][] = [];
  for (const row of xml.matchAll(/<row\b[^>]*?(?:\/>|>([\s\S]*?)<\/row>)/g)) {
    const cells: string[] = [];
    let next = 0;
    for (const c of (row[1] ?? '').matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const attrs = c[1] ?? '';
      const body = c[2] ?? '';
      const ref = attribute(attrs, 'r');
      const at = ref ? columnIndex(ref) : next;
      next = at + 1;
      const type = attribute(attrs, 't');
      const v = /<v\b[^>]*>([\s\S]*?)<\/v>/.exec(body)?.[1];
      let text: string;
      if (type === 'inlineStr') text = textOf(/<is\b[^>]*>([\s\S]*?)<\/is>/.exec(body)?.[1] ?? '');
      else if (type === 's') text = shared[Number(v)] ?? '';
      else text = v === undefined ? '' : unescapeText(v);
      while (cells.length < at) cells.push('');
      cells[at] = text;
    }
    rows.push(cells);
  }
  return rows;
}
