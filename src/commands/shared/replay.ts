/**
 * A replayed externalRef returns the existing order or checkout (spec section 1, rule
 * 10) whatever the new request asked for. When the two differ, the person reused a ref
 * for another purchase: saying "already existed, no new charge" and exiting 0 would hide
 * that nothing of what they asked for was bought. Compared here, field by field; a field
 * the service did not send is not held against it.
 */
import { CliError, ExitCode } from '../../errors.js';

export interface AskedLine {
  productId: string;
  skuId?: string;
  amount: number;
  quantity: number;
}

export interface ReplayedLine {
  productId?: string;
  skuId?: string;
  unitAmount?: number;
  quantity?: number;
}

function lineText(l: { productId?: string; skuId?: string; amount?: number; quantity?: number }): string {
  const sku = l.skuId ? ` (${l.skuId})` : '';
  return `${l.quantity ?? '?'} x ${l.productId ?? '?'}${sku} at ${l.amount ?? '?'}`;
}

const differs = (asked: unknown, got: unknown) =>
  got !== undefined &&
  (typeof asked === 'number' && typeof got === 'number' ? Math.abs(asked - got) > 1e-9 : asked !== got);

/** Empty when the replayed lines are the asked ones; otherwise one description per side. */
export function replayDifference(
  asked: readonly AskedLine[],
  got: readonly ReplayedLine[],
): { asked: string; got: string } | undefined {
  const same =
    asked.length === got.length &&
    asked.every((a, i) => {
      const g = got[i] as ReplayedLine;
      return !(
        differs(a.productId, g.productId) ||
        (a.skuId !== undefined && differs(a.skuId, g.skuId)) ||
        differs(a.amount, g.unitAmount) ||
        differs(a.quantity, g.quantity)
      );
    });
  if (same) return undefined;
  return {
    asked: asked.map(lineText).join(', '),
    got: got.map((g) => lineText({ ...g, amount: g.unitAmount })).join(', '),
  };
}

/** Exit 2: nothing was bought by this call, and the ref cannot buy what was asked. */
export function refReusedError(what: string, ref: string, id: string, diff: { asked: string; got: string }) {
  return new CliError(
    `externalRef ${ref} already names ${what} ${id} for ${diff.got}, not ${diff.asked}: ` +
      'nothing was bought by this call (the service returned the existing one). ' +
      'Use another --ref for a new purchase',
    { exitCode: ExitCode.usage, code: 'REF_IN_USE' },
  );
}
