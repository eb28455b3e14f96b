/**
 * Checkout lines from `--item productId:skuId:amount[:quantity]` flags or an items
 * file (CSV with a header, or JSON: an array or `{items: [...]}`). Pure but for the
 * file read, so the parsing is tested on its own.
 */
import { extname } from 'node:path';
import { decimalText, readDecimal, readWhole } from '../../decimal.js';
import { UsageError } from '../../errors.js';
import { CHECKOUT_ITEMS_MAX, CHECKOUT_ITEMS_MIN } from '../../schemas/common.js';
import { OrderLineRequest } from '../../schemas/orders.js';
import { readFlagFile } from '../shared/read-file.js';

export type Line = OrderLineRequest;

export function parseItemFlag(value: string): Line {
  const parts = value.split(':');
  if (parts.length < 3 || parts.length > 4 || parts.some((p) => p.trim() === '')) {
    throw new UsageError(`--item "${value}": expected productId:skuId:amount[:quantity]`);
  }
  const [productId, skuId, amountText, quantityText] = parts as [string, string, string, string | undefined];
  return checkLine(
    { productId, skuId, amount: amountText, quantity: quantityText ?? '1' },
    `--item "${value}"`,
  );
}

/** A JSON number as text for the reader (NaN and Infinity cannot come from JSON). */
function decimalTextOf(value: number): string {
  return Number.isFinite(value) ? decimalText(value) : String(value);
}

function checkLine(row: Record<string, unknown>, where: string): Line {
  // A JSON items file gives numbers; text (flags, CSV cells) must be a plain decimal.
  const amountRead = readDecimal(
    typeof row.amount === 'number' ? decimalTextOf(row.amount) : String(row.amount ?? ''),
  );
  if (!amountRead.ok) throw new UsageError(`${where}: amount ${amountRead.reason}`);
  const amount = amountRead.value;
  // An empty quantity cell means one unit.
  const quantityRead =
    row.quantity === undefined || row.quantity === ''
      ? ({ ok: true, value: 1 } as const)
      : readWhole(typeof row.quantity === 'number' ? decimalTextOf(row.quantity) : String(row.quantity));
  if (!quantityRead.ok) throw new UsageError(`${where}: quantity ${quantityRead.reason}`);
  const quantity = quantityRead.value;
  let requiredFields = row.requiredFields;
  if (typeof requiredFields === 'string') {
    if (requiredFields.trim() === '') requiredFields = undefined;
    else {
      try {
        requiredFields = JSON.parse(requiredFields);
      } catch {
        throw new UsageError(`${where}: requiredFields must be a JSON object`);
      }
    }
  }
  const parsed = OrderLineRequest.safeParse({
    productId: String(row.productId ?? '').trim(),
    skuId: String(row.skuId ?? '').trim(),
    amount,
    quantity,
    ...(requiredFields === undefined || requiredFields === null ? {} : { requiredFields }),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${where}: ${issue?.path.join('.') || 'item'} ${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data;
}

/** Rows of a CSV (header: productId,skuId,amount[,quantity][,requiredFields]) or JSON items file. */
export async function parseItemsText(text: string, format: 'csv' | 'json', file: string): Promise<Line[]> {
  if (format === 'json') {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`${file}: not valid JSON (${(error as Error).message})`);
    }
    const rows = Array.isArray(body) ? body : (body as { items?: unknown } | null)?.items;
    if (!Array.isArray(rows)) throw new UsageError(`${file}: expected an array of items or {"items": [...]}`);
    return rows.map((row, i) => {
      if (typeof row !== 'object' || row === null)
        throw new UsageError(`${file} item ${i + 1}: not an object`);
      return checkLine(row as Record<string, unknown>, `${file} item ${i + 1}`);
    });
  }
  const { parse } = await import('csv-parse/sync');
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true });
  } catch (error) {
    throw new UsageError(`${file}: ${(error as Error).message}`);
  }
  return rows.map((row, i) => checkLine(row, `${file} line ${i + 2}`));
}

export async function readItemsFile(path: string): Promise<Line[]> {
  const text = await readFlagFile('--items-file', path);
  const format =
    extname(path).toLowerCase() === '.json' ||
    text.trimStart().startsWith('[') ||
    text.trimStart().startsWith('{')
      ? 'json'
      : 'csv';
  return parseItemsText(text, format, path);
}

export async function collectItems(flags: string[] | undefined, file: string | undefined): Promise<Line[]> {
  const lines = [...(flags ?? []).map(parseItemFlag), ...(file ? await readItemsFile(file) : [])];
  if (lines.length < CHECKOUT_ITEMS_MIN)
    throw new UsageError(
      'a checkout needs at least one item: pass --item productId:skuId:amount[:quantity] or --items-file',
    );
  if (lines.length > CHECKOUT_ITEMS_MAX)
    throw new UsageError(`a checkout takes at most ${CHECKOUT_ITEMS_MAX} items (spec); got ${lines.length}`);
  return lines;
}
