/**
 * A replayed externalRef returns the existing order or checkout (spec section 1, rule
 * 10) whatever the new request asked for. When the two differ, the person reused a ref
 * for another purchase: saying "already existed, no new charge" and exiting 0 would hide
 * that nothing of what they asked for was bought (another recipient gets nothing). So
 * everything the service returns is compared against the request: each line's product,
 * SKU, amount, quantity and required fields (the recipient), and the checkout's customer,
 * currency, country, markup, sealing and payment method. A field the service did not send
 * cannot be held against it; a recipient it did not send is reported as unverified.
 */
import { CliError, ExitCode } from '../../errors.js';

export interface AskedLine {
  productId: string;
  skuId?: string;
  amount: number;
  quantity: number;
  requiredFields?: Record<string, unknown>;
}

export interface ReplayedLine {
  productId?: string;
  skuId?: string;
  unitAmount?: number;
  quantity?: number;
  requiredFields?: Record<string, unknown> | null;
}

/** One compared field besides the lines: what was asked, and what the service returned (undefined: not returned). */
export interface AskedField {
  name: string;
  asked: unknown;
  got: unknown;
  /** Strings compared without case (an email, a currency code). */
  caseless?: boolean;
}

export interface ReplayCheck {
  /** Descriptions of what differs, one side each; undefined when nothing does. */
  diff?: { asked: string; got: string; fields: string[] };
  /** Asked recipient fields the service returned nothing to compare with. */
  unverified: boolean;
}

function lineText(l: { productId?: string; skuId?: string; amount?: number; quantity?: number }): string {
  const sku = l.skuId ? ` (${l.skuId})` : '';
  return `${l.quantity ?? '?'} x ${l.productId ?? '?'}${sku} at ${l.amount ?? '?'}`;
}

const differs = (asked: unknown, got: unknown, caseless = false) => {
  if (got === undefined) return false;
  if (typeof asked === 'number' && typeof got === 'number') return Math.abs(asked - got) > 1e-9;
  if (caseless && typeof asked === 'string' && typeof got === 'string')
    return asked.toLowerCase() !== got.toLowerCase();
  return asked !== got;
};

function fieldsText(fields: Record<string, unknown> | null | undefined): string {
  const entries = Object.entries(fields ?? {});
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k}=${String(v)}`).join(' ');
}

/** Whether two sets of required fields name the same values (compared as text). */
function sameFields(
  asked: Record<string, unknown> | undefined,
  got: Record<string, unknown> | null,
): boolean {
  const a = asked ?? {};
  const g = got ?? {};
  const keys = new Set([...Object.keys(a), ...Object.keys(g)]);
  for (const k of keys) if (String(a[k] ?? '') !== String(g[k] ?? '')) return false;
  return true;
}

/** Compares a replayed order or checkout with the request that met it. */
export function checkReplay(
  asked: readonly AskedLine[],
  got: readonly ReplayedLine[],
  others: readonly AskedField[] = [],
): ReplayCheck {
  const fields: string[] = [];
  let unverified = false;
  let linesDiffer = asked.length !== got.length;
  if (linesDiffer) fields.push('items');
  const recipient: Array<{ i: number; asked: string; got: string }> = [];
  asked.forEach((a, i) => {
    const g = got[i];
    if (!g) return;
    const line = asked.length > 1 ? `item ${i + 1} ` : '';
    for (const [name, x, y] of [
      ['product', a.productId, g.productId],
      ['sku', a.skuId, a.skuId === undefined ? undefined : g.skuId],
      ['amount', a.amount, g.unitAmount],
      ['quantity', a.quantity, g.quantity],
    ] as const) {
      if (differs(x, y)) {
        linesDiffer = true;
        fields.push(`${line}${name}`);
      }
    }
    const askedFields = a.requiredFields && Object.keys(a.requiredFields).length > 0;
    if (g.requiredFields === undefined) {
      if (askedFields) unverified = true;
    } else if (!sameFields(a.requiredFields, g.requiredFields)) {
      fields.push(`${line}requiredFields`);
      recipient.push({ i, asked: fieldsText(a.requiredFields), got: fieldsText(g.requiredFields) });
    }
  });
  const other = others.filter((f) => f.asked !== undefined && differs(f.asked, f.got, f.caseless));
  for (const f of other) fields.push(f.name);
  if (fields.length === 0) return { unverified };
  const parts = (side: 'asked' | 'got'): string => {
    const out: string[] = [];
    if (linesDiffer)
      out.push(
        side === 'asked'
          ? // The SKU only where the service shows one (a B2B order item has none).
            asked.map((a, i) => lineText(got[i]?.skuId ? a : { ...a, skuId: undefined })).join(', ')
          : got.map((g) => lineText({ ...g, amount: g.unitAmount })).join(', '),
      );
    for (const r of recipient)
      out.push(`${asked.length > 1 ? `item ${r.i + 1} ` : ''}requiredFields ${r[side]}`);
    for (const f of other) out.push(`${f.name} ${String(f[side])}`);
    return out.join(', ');
  };
  return { diff: { asked: parts('asked'), got: parts('got'), fields }, unverified };
}

/** Exit 2: nothing was bought by this call, and the ref cannot buy what was asked. */
export function refReusedError(
  what: string,
  ref: string,
  id: string,
  diff: { asked: string; got: string; fields?: string[] },
) {
  const which = diff.fields?.length ? ` (differs in ${diff.fields.join(', ')})` : '';
  return new CliError(
    `externalRef ${ref} already names ${what} ${id} for ${diff.got}, not ${diff.asked}${which}: ` +
      'nothing was bought by this call (the service returned the existing one). ' +
      'Use another --ref for a new purchase',
    { exitCode: ExitCode.usage, code: 'REF_IN_USE' },
  );
}

/** The warning when the service returned no recipient fields to compare. */
export function unverifiedRecipientWarning(what: string, ref: string, id: string): string {
  return (
    `warning: externalRef ${ref} names the existing ${what} ${id}, and the service returned no required fields ` +
    'to compare: the recipient could not be verified. If this ref was meant for another recipient, nothing was ' +
    'bought for them: use another --ref'
  );
}
