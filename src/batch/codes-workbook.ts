/**
 * Reading an xlsx codes file back (for reconcile, refund batch and finding a batch's
 * id): the first sheet's cells as text, whether the cells are shared strings (as
 * write-excel-file, Excel and LibreOffice save them), inline strings or numbers. The
 * sheet XML is plain enough (one cell element per cell, values in `<v>` or `<t>`) to be
 * read without an XML library. Only the first worksheet is read.
 *
 * A workbook is a file someone hands you, so the reader is bounded: each part inflates to
 * at most MAX_PART_BYTES (workbook-zip.ts), the sheet to at most MAX_ROWS rows, MAX_CELLS
 * cells and MAX_COLUMNS columns, and the XML is scanned once, element by element with
 * indexOf (no regular expression runs over the sheet, so unclosed tags cannot make it
 * backtrack). Anything it cannot read is a usage error naming the file and the reason.
 */
import { XLSX_MAX_ROWS } from '../bulk/store/index.js';
import { OUTPUT_COLUMNS } from '../bulk/types.js';
import { UsageError } from '../errors.js';
import { partBytes, UnreadableWorkbook, zipParts } from './workbook-zip.js';

/** A file that starts as a zip archive does (every xlsx is one). */
export function isZip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/**
 * The limits, with room to spare over what `order bulk` writes: at most XLSX_MAX_ROWS
 * units (one row each, and the head), 15 columns; its 50,000-row sheet inflates to about
 * 28 MiB and its shared strings to 15 MiB (measured).
 */
export const MAX_ROWS = 2 * XLSX_MAX_ROWS + 1;
export const MAX_COLUMNS = 4 * OUTPUT_COLUMNS.length;
export const MAX_CELLS = MAX_ROWS * OUTPUT_COLUMNS.length;
export const MAX_PART_BYTES = 128 * 1024 * 1024;

const unreadable = (what: string) => new UnreadableWorkbook(what);

/** The element `<name ...>body</name>` (or `<name .../>`) found in `xml` from `from`, or undefined. */
interface Element {
  attrs: string;
  body: string;
  /** Where the element starts (its `<`), and where the text after it starts. */
  start: number;
  next: number;
}

/** After `<name`: a space, `>` or `/` ends the name (`<c` is not `<cols`). */
const endsName = (char: string | undefined) =>
  char === ' ' || char === '>' || char === '/' || char === '\t' || char === '\n' || char === '\r';

/**
 * The next `name` element in `xml` from `from`. Linear: each search starts where the last
 * one ended, and an element left open is an error at once (never searched for again).
 */
function nextElement(xml: string, name: string, from: number): Element | undefined {
  const open = `<${name}`;
  let start = xml.indexOf(open, from);
  while (start >= 0 && !endsName(xml[start + open.length])) start = xml.indexOf(open, start + 1);
  if (start < 0) return undefined;
  const tagEnd = xml.indexOf('>', start + open.length);
  if (tagEnd < 0) throw unreadable(`a <${name}> tag is not closed`);
  if (xml[tagEnd - 1] === '/')
    return { attrs: xml.slice(start + open.length, tagEnd - 1), body: '', start, next: tagEnd + 1 };
  const close = `</${name}>`;
  const end = xml.indexOf(close, tagEnd + 1);
  if (end < 0) throw unreadable(`a <${name}> element has no </${name}>`);
  return {
    attrs: xml.slice(start + open.length, tagEnd),
    body: xml.slice(tagEnd + 1, end),
    start,
    next: end + close.length,
  };
}

/** Every `name` element of `xml`, in order. */
function* elements(xml: string, name: string): Generator<Element> {
  for (let e = nextElement(xml, name, 0); e; e = nextElement(xml, name, e.next)) yield e;
}

/** An attribute's value in a start tag's attribute text: ` name="value"` (or single quotes). */
function attribute(attrs: string, name: string): string | undefined {
  for (let at = attrs.indexOf(`${name}=`); at >= 0; at = attrs.indexOf(`${name}=`, at + 1)) {
    if (at > 0 && !endsName(attrs[at - 1])) continue;
    const quote = attrs[at + name.length + 1];
    if (quote !== '"' && quote !== "'") continue;
    const valueStart = at + name.length + 2;
    const end = attrs.indexOf(quote, valueStart);
    if (end < 0) throw unreadable(`an attribute ${name} is not closed`);
    return attrs.slice(valueStart, end);
  }
  return undefined;
}

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** A character XML 1.0 can carry (what a character reference may name). */
const xmlChar = (cp: number) =>
  cp === 0x9 ||
  cp === 0xa ||
  cp === 0xd ||
  (cp >= 0x20 && cp <= 0xd7ff) ||
  (cp >= 0xe000 && cp <= 0xfffd) ||
  (cp >= 0x10000 && cp <= 0x10ffff);

/** XML entities, then OOXML's `_xHHHH_` escapes of characters XML cannot hold. */
function unescapeText(text: string): string {
  if (!text.includes('&') && !text.includes('_x')) return text;
  return text
    .replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (reference, e: string) => {
      if (e[0] !== '#') return ENTITY[e.toLowerCase()] ?? reference;
      const cp = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      if (!xmlChar(cp))
        throw unreadable(`the character reference ${reference.slice(0, 24)} names no character`);
      return String.fromCodePoint(cp);
    })
    .replace(/_x([0-9a-f]{4})_/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The text runs of a string item (`<si>` or `<is>`), phonetic hints (`<rPh>`) left out. */
function textOf(xml: string): string {
  let text = '';
  let phonetic = nextElement(xml, 'rPh', 0);
  for (let t = nextElement(xml, 't', 0); t; t = nextElement(xml, 't', t.next)) {
    while (phonetic && phonetic.next <= t.start) phonetic = nextElement(xml, 'rPh', phonetic.next);
    if (phonetic && phonetic.start < t.start) continue;
    text += unescapeText(t.body);
  }
  return text;
}

/** The column of a cell reference (`B7` is 1), refused past MAX_COLUMNS. */
function columnIndex(ref: string): number {
  let n = 0;
  let letters = 0;
  for (const ch of ref.toUpperCase()) {
    if (ch < 'A' || ch > 'Z') break;
    n = n * 26 + (ch.charCodeAt(0) - 64);
    letters += 1;
    if (n > MAX_COLUMNS)
      throw unreadable(
        `cell ${ref.slice(0, 24)} is past column ${MAX_COLUMNS} (a codes file has ${OUTPUT_COLUMNS.length})`,
      );
  }
  if (letters === 0) throw unreadable(`the cell reference "${ref.slice(0, 24)}" names no column`);
  return n - 1;
}

/** Text as UTF-8, refused when it is not (a code read through a replacement character would be wrong). */
const utf8 = new TextDecoder('utf-8', { fatal: true });
function partText(bytes: Buffer, name: string, part: Parameters<typeof partBytes>[2]): string {
  try {
    return utf8.decode(partBytes(bytes, name, part, MAX_PART_BYTES));
  } catch (error) {
    if (error instanceof UnreadableWorkbook) throw error;
    throw unreadable(`${name} is not UTF-8 text`);
  }
}

function sharedStrings(xml: string): string[] {
  const shared: string[] = [];
  for (const si of elements(xml, 'si')) {
    if (shared.length >= MAX_CELLS)
      throw unreadable(`more than ${MAX_CELLS.toLocaleString('en-US')} shared strings`);
    shared.push(textOf(si.body));
  }
  return shared;
}

function sheetRows(xml: string, shared: readonly string[]): string[][] {
  const rows: string[][] = [];
  let count = 0;
  for (const row of elements(xml, 'row')) {
    if (rows.length >= MAX_ROWS) throw unreadable(`more than ${MAX_ROWS.toLocaleString('en-US')} rows`);
    const cells: string[] = [];
    let next = 0;
    for (const c of elements(row.body, 'c')) {
      count += 1;
      if (count > MAX_CELLS) throw unreadable(`more than ${MAX_CELLS.toLocaleString('en-US')} cells`);
      const ref = attribute(c.attrs, 'r');
      const at = ref ? columnIndex(ref) : next;
      if (at >= MAX_COLUMNS)
        throw unreadable(`a row runs past column ${MAX_COLUMNS} (a codes file has ${OUTPUT_COLUMNS.length})`);
      next = at + 1;
      const type = attribute(c.attrs, 't');
      const v = nextElement(c.body, 'v', 0)?.body;
      let text: string;
      if (type === 'inlineStr') text = textOf(nextElement(c.body, 'is', 0)?.body ?? '');
      else if (type === 's') text = shared[Number(v)] ?? '';
      else text = v === undefined ? '' : unescapeText(v);
      while (cells.length < at) cells.push('');
      cells[at] = text;
    }
    rows.push(cells);
  }
  return rows;
}

/** The first sheet as rows of cell texts (empty cells as ''). */
export function workbookRows(bytes: Uint8Array, where: string): string[][] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const parts = zipParts(
      buffer,
      (name) => name === 'xl/sharedStrings.xml' || /^xl\/worksheets\/[^/]+\.xml$/.test(name),
    );
    const sheetName = [...parts.keys()]
      .filter((n) => n.startsWith('xl/worksheets/'))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0];
    if (!sheetName) throw new UsageError(`${where}: the workbook has no worksheet`);
    const sst = parts.get('xl/sharedStrings.xml');
    const shared = sst ? sharedStrings(partText(buffer, 'xl/sharedStrings.xml', sst)) : [];
    const sheet = parts.get(sheetName) as Parameters<typeof partBytes>[2];
    return sheetRows(partText(buffer, sheetName, sheet), shared);
  } catch (error) {
    if (error instanceof UnreadableWorkbook)
      throw new UsageError(`${where}: not a readable xlsx workbook (${error.message})`);
    throw error;
  }
}
