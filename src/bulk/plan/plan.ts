/**
 * Planning: rows become orders that respect the live per-order limits, in input
 * order (so each order covers a contiguous run of rows and the plan is the same for
 * the same file and limits). A row's quantity is split across lines and orders when
 * needed. USD values are estimated prices (the catalog's price per face unit, at live
 * rates): the order freezes its own rates (spec rule 5), so they stay estimates.
 */

import { UsageError } from '../../errors.js';
import { toUsd } from '../../money.js';
import type { Account } from '../../schemas/account.js';
import type { Product, Sku } from '../../schemas/catalog.js';
import type { Rates } from '../../schemas/rates.js';
import type { InputRow, PlanEstimate, PlanLimits, PlannedLine, PlannedOrder } from '../types.js';
import { anchorRef, childRef, orderRef } from './refs.js';

/**
 * Planned orders stay this much under `maxOrderAmountUSD`: rates move between the
 * plan and the order (spec rule 12), and a 422 costs a round trip and a re-split.
 */
export const ORDER_AMOUNT_HEADROOM = 0.99;

/**
 * Estimated USD price of one unit. The denomination (`amount`) is in the product's
 * currency and prices are in its costCurrency (spec §1 rules 5, 8). The spec gives no
 * price formula; the catalog's `minCost` (in costCurrency) is read as the price of the
 * SKU's `min`, so the price per face unit is `minCost / min`, which carries the account's
 * discount and the currency conversion (spec gap 26). Without a usable `minCost`: the
 * face value in USD (no discount assumed, so limits and balance checks err on the safe side).
 */
export function unitUsd(
  amount: number,
  product: Pick<Product, 'productCurrency' | 'costCurrency'>,
  sku: Pick<Sku, 'min' | 'minCost'> | undefined,
  rates: Rates,
): number {
  const minCost = sku?.minCost;
  if (sku && typeof minCost === 'number' && Number.isFinite(minCost) && minCost > 0 && sku.min > 0)
    return toUsd((amount * minCost) / sku.min, product.costCurrency, rates);
  return toUsd(amount, product.productCurrency ?? product.costCurrency, rates);
}

/**
 * The per-order limits the plan respects; an absent one is no limit. A count that is not
 * a whole number of at least 1 (or an amount that is not above 0) cannot be planned
 * under: it is refused, naming the limit, before anything is bought.
 */
export function limitsFrom(account: Pick<Account, 'limits'>): PlanLimits {
  const limit = (name: keyof PlanLimits, whole: boolean): number => {
    const v: unknown = account.limits[name];
    if (v === undefined || v === null) return Number.POSITIVE_INFINITY;
    const ok = typeof v === 'number' && Number.isFinite(v) && (whole ? Number.isInteger(v) && v >= 1 : v > 0);
    if (!ok)
      throw new UsageError(
        `the account's ${name} is ${JSON.stringify(v)}, not ${whole ? 'a whole number of at least 1' : 'an amount above 0'}: orders cannot be planned under it; nothing was bought (ask the service's support)`,
      );
    return v;
  };
  return {
    maxItemsPerOrder: limit('maxItemsPerOrder', true),
    maxQuantityPerItem: limit('maxQuantityPerItem', true),
    maxOrderAmountUSD: limit('maxOrderAmountUSD', false),
  };
}

const MICRO = 1e6;
const micros = (usd: number) => Math.ceil(usd * MICRO - 1e-6);

type LineSource = Omit<PlannedLine, 'quantity' | 'firstUnit'> & { quantity: number; firstUnit: number };

/**
 * Packs lines (possibly splitting them) into groups that respect the limits, one
 * source at a time: each group is handed to `emit` as soon as it is full, so a plan
 * of any size is made without holding every line as an object.
 */
export class Packer {
  private current: PlannedLine[] = [];
  private currentMicros = 0;
  private readonly maxMicros: number;

  constructor(
    private readonly limits: PlanLimits,
    private readonly emit: (lines: PlannedLine[]) => void,
  ) {
    this.maxMicros = Number.isFinite(limits.maxOrderAmountUSD)
      ? Math.floor(limits.maxOrderAmountUSD * ORDER_AMOUNT_HEADROOM * MICRO)
      : Number.POSITIVE_INFINITY;
  }

  private flush(): void {
    if (this.current.length) this.emit(this.current);
    this.current = [];
    this.currentMicros = 0;
  }

  add(source: LineSource): void {
    const { limits, maxMicros } = this;
    const unitMicros = Math.max(1, micros(source.unitUsd));
    let remaining = source.quantity;
    let firstUnit = source.firstUnit;
    while (remaining > 0) {
      if (this.current.length >= limits.maxItemsPerOrder) this.flush();
      const room = Math.floor((maxMicros - this.currentMicros) / unitMicros);
      if (room < 1) {
        if (this.current.length === 0) {
          // One unit over the headroom but within the limit itself: send it alone.
          // (Validation rejects units over the limit before planning.)
          this.current.push({ ...source, quantity: 1, firstUnit });
          this.currentMicros += unitMicros;
          remaining -= 1;
          firstUnit += 1;
          this.flush();
          continue;
        }
        this.flush();
        continue;
      }
      const quantity = Math.min(remaining, limits.maxQuantityPerItem, room);
      this.current.push({ ...source, quantity, firstUnit });
      this.currentMicros += quantity * unitMicros;
      remaining -= quantity;
      firstUnit += quantity;
    }
  }

  end(): void {
    this.flush();
  }
}

/** Pack lines (possibly splitting them) into groups that respect the limits. */
export function packLines(sources: Iterable<LineSource>, limits: PlanLimits): PlannedLine[][] {
  const groups: PlannedLine[][] = [];
  const packer = new Packer(limits, (lines) => groups.push(lines));
  for (const source of sources) packer.add(source);
  packer.end();
  return groups;
}

/**
 * Plans rows into orders, handing each to `emit` with its ref as soon as it is
 * complete (in plan order), so the caller can store it compactly.
 */
export function planInto(
  rows: Iterable<InputRow>,
  products: Map<string, Product>,
  rates: Rates,
  limits: PlanLimits,
  batch: string,
  emit: (order: PlannedOrder) => void,
  options: { anchor?: boolean } = {},
): void {
  const planner = new Planner(products, rates, limits, batch, emit, options);
  for (const r of rows) planner.add(r);
  planner.end();
}

/** `planInto` a row at a time, as the planning pass reads them: the same plan. */
export class Planner {
  private index = 0;
  private anchored: boolean;
  private readonly packer: Packer;

  constructor(
    private readonly products: Map<string, Product>,
    private readonly rates: Rates,
    limits: PlanLimits,
    private readonly batch: string,
    private readonly emit: (order: PlannedOrder) => void,
    options: { anchor?: boolean } = {},
  ) {
    this.anchored = !options.anchor;
    this.packer = new Packer(limits, (lines) => emit({ ref: orderRef(batch, this.index++, lines), lines }));
  }

  add(r: InputRow): void {
    const source = lineSource(r, this.products, this.rates);
    if (!this.anchored) {
      // The anchor: the first unit of the first row, alone (see anchorRef).
      this.anchored = true;
      const { quantity: _all, ...unit } = source;
      this.emit({ ref: anchorRef(this.batch), lines: [{ ...unit, quantity: 1, firstUnit: 1 }] });
      if (source.quantity > 1) this.packer.add({ ...source, quantity: source.quantity - 1, firstUnit: 2 });
      return;
    }
    this.packer.add(source);
  }

  end(): void {
    this.packer.end();
  }
}

function lineSource(r: InputRow, products: Map<string, Product>, rates: Rates): LineSource {
  const product = products.get(r.productId);
  if (!product) throw new Error(`row ${r.row}: product ${r.productId} vanished after validation`);
  return {
    row: r.row,
    productId: r.productId,
    skuId: r.skuId,
    amount: r.amount,
    quantity: r.quantity,
    firstUnit: 1,
    unitUsd: unitUsd(
      r.amount,
      product,
      // A product built without its SKUs (tests, a sparse catalog entry) is priced at face value.
      product.skus?.find((s) => s.id === r.skuId),
      rates,
    ),
    ...(r.requiredFields ? { requiredFields: r.requiredFields } : {}),
    // Carried with the plan so the output needs no per-row memory; not part of the ref (refs.ts).
    ...(r.ref ? { ref: r.ref } : {}),
  };
}

/**
 * The ref the first order of this file had before batches began with an anchor
 * (plans without one, journal version 1): a run that finds no anchor also looks this
 * one up, so a batch bought by an earlier version whose journal was lost is not
 * taken for a new one (when the limits are still those it was planned under). It is
 * the first order of a plan without an anchor; `add` says when it is known, so the
 * rows after it need not be planned.
 */
export class LegacyFirstRef {
  private first: string | undefined;
  private readonly planner: Planner;

  constructor(products: Map<string, Product>, rates: Rates, limits: PlanLimits, batch: string) {
    this.planner = new Planner(products, rates, limits, batch, (order) => {
      this.first ??= order.ref;
    });
  }

  /** True once the first order is complete (later rows change nothing). */
  add(r: InputRow): boolean {
    if (this.first === undefined) this.planner.add(r);
    return this.first !== undefined;
  }

  end(): string | undefined {
    if (this.first === undefined) this.planner.end();
    return this.first;
  }
}

export function planOrders(
  rows: Iterable<InputRow>,
  products: Map<string, Product>,
  rates: Rates,
  limits: PlanLimits,
  batch: string,
): PlannedOrder[] {
  const orders: PlannedOrder[] = [];
  planInto(rows, products, rates, limits, batch, (order) => orders.push(order));
  return orders;
}

/**
 * Re-split an order the service rejected for a per-order limit. Packs it again under
 * the live limits; when that changes nothing (the service counts differently from
 * our estimate), halves it. Returns undefined when it cannot be split further.
 */
export function splitOrder(order: PlannedOrder, limits: PlanLimits): PlannedOrder[] | undefined {
  let groups = packLines(order.lines, limits);
  if (groups.length < 2) groups = halve(order.lines);
  if (groups.length < 2) return undefined;
  return groups.map((lines, k) => ({ ref: childRef(order.ref, k, lines), lines }));
}

function halve(lines: PlannedLine[]): PlannedLine[][] {
  if (lines.length > 1) {
    const mid = Math.ceil(lines.length / 2);
    return [lines.slice(0, mid), lines.slice(mid)];
  }
  const only = lines[0];
  if (!only || only.quantity < 2) return [lines];
  const first = Math.ceil(only.quantity / 2);
  return [
    [{ ...only, quantity: first }],
    [{ ...only, quantity: only.quantity - first, firstUnit: only.firstUnit + first }],
  ];
}

export function estimatePlan(
  orders: Iterable<{ lines: readonly PlannedLine[] }>,
  currencyOf: (productId: string) => string,
): PlanEstimate {
  const sum = new EstimateSum(currencyOf);
  for (const order of orders) sum.add(order);
  return sum.result();
}

/** `estimatePlan` one order at a time, for a plan that is never held whole. */
export class EstimateSum {
  private readonly estimate: PlanEstimate = {
    orders: 0,
    lines: 0,
    units: 0,
    usd: 0,
    perCurrency: new Map(),
    usdPerCurrency: new Map(),
    unitsPerProduct: new Map(),
  };
  private usdMicros = 0;
  private readonly usdMicrosPerCurrency = new Map<string, number>();

  constructor(private readonly currencyOf: (productId: string) => string) {}

  add(order: { lines: readonly PlannedLine[] }): void {
    const estimate = this.estimate;
    estimate.orders += 1;
    for (const line of order.lines) {
      estimate.lines += 1;
      estimate.units += line.quantity;
      estimate.unitsPerProduct.set(
        line.productId,
        (estimate.unitsPerProduct.get(line.productId) ?? 0) + line.quantity,
      );
      const lineMicros = micros(line.unitUsd) * line.quantity;
      this.usdMicros += lineMicros;
      const currency = this.currencyOf(line.productId);
      this.usdMicrosPerCurrency.set(currency, (this.usdMicrosPerCurrency.get(currency) ?? 0) + lineMicros);
      estimate.perCurrency.set(
        currency,
        Math.round(((estimate.perCurrency.get(currency) ?? 0) + line.amount * line.quantity) * 100) / 100,
      );
    }
  }

  result(): PlanEstimate {
    return {
      ...this.estimate,
      perCurrency: new Map(this.estimate.perCurrency),
      usdPerCurrency: new Map([...this.usdMicrosPerCurrency].map(([c, m]) => [c, m / MICRO])),
      unitsPerProduct: new Map(this.estimate.unitsPerProduct),
      usd: this.usdMicros / MICRO,
    };
  }
}

export function orderUsd(order: { lines: readonly PlannedLine[] }): number {
  return order.lines.reduce((sum, l) => sum + micros(l.unitUsd) * l.quantity, 0) / MICRO;
}

/** The currency a product's denominations are in, for the estimate's per-currency face value. */
export function currencyOf(live: { products: ReadonlyMap<string, Product> }): (productId: string) => string {
  return (productId) => {
    const p = live.products.get(productId);
    return p?.productCurrency ?? p?.costCurrency ?? '?';
  };
}
