/**
 * The SKU grid (spec §1 rule 8, §2: `amount` "must lie within min..max and follow
 * changeStep"), checked with exact decimal arithmetic: the amount, min and step are
 * scaled to integers at their largest number of decimals, so `195.0000001` is off a
 * step-5 grid (no floating tolerance lets it through). Shared by the CLI's preflight
 * and the sandbox, so the two agree.
 *
 * Where the grid starts is not shown: at min (`min + k * step`) or at 0 (`k * step`).
 * The two agree whenever min is a multiple of the step. `anchor: 'min'` is the sandbox's
 * rule; `'either'` accepts what either reading accepts (the CLI refuses only what no
 * reading of the spec allows; see docs/spec-gaps.md).
 */
import { decimalsOf, decimalText, scaled, unscaled } from './decimal.js';

export interface GridSku {
  min: number;
  max: number;
  changeStep?: number | undefined;
}

export type GridVerdict =
  | { ok: true }
  /** The nearest amounts on the min-anchored grid, each within min..max when there is one. */
  | { ok: false; below?: number; above?: number };

export function checkGrid(amount: number, sku: GridSku, anchor: 'min' | 'either'): GridVerdict {
  const step = sku.changeStep ?? 0;
  if (!(step > 0) || !Number.isFinite(amount)) return { ok: true };
  const texts = [amount, sku.min, sku.max, step].map(decimalText);
  const scale = Math.max(...texts.map(decimalsOf));
  const [a, min, max, s] = texts.map((t) => scaled(t, scale)) as [bigint, bigint, bigint, bigint];
  const fromMin = (((a - min) % s) + s) % s;
  if (fromMin === 0n) return { ok: true };
  if (anchor === 'either' && a % s === 0n) return { ok: true };
  const below = a - fromMin;
  const above = below + s;
  const back = (units: bigint) => Number(unscaled(units, scale));
  return {
    ok: false,
    ...(below >= min && below <= max ? { below: back(below) } : {}),
    ...(above >= min && above <= max ? { above: back(above) } : {}),
  };
}

/** "the nearest valid amounts are 195 and 200", for a refusal. */
export function describeNeighbours(verdict: GridVerdict): string {
  if (verdict.ok) return '';
  const near = [verdict.below, verdict.above].filter((v): v is number => v !== undefined).map(decimalText);
  if (near.length === 0) return '';
  return near.length === 1
    ? `the nearest valid amount is ${near[0]}`
    : `the nearest valid amounts are ${near.join(' and ')}`;
}
