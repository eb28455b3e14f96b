/** The data the bulk engine's pure modules pass to each other. */

/** One parsed input data row (row 1 is the first record after the header). */
export interface InputRow {
  row: number;
  /** The file line the record starts on (1-based, blank lines counted), for messages. */
  line?: number;
  productId: string;
  skuId: string;
  amount: number;
  quantity: number;
  /** The buyer's own line key, copied to the output. */
  ref: string;
  requiredFields?: Record<string, string>;
}

/** A reason a row (or the header, or the whole file: no row) cannot be bought. */
export interface RowError {
  /** The data row; undefined for the header and the file as a whole. */
  row?: number;
  /** The file line the row (or the header) starts on. */
  line?: number;
  /** The row's own ref, when it has one: what the buyer searches their sheet for. */
  ref?: string;
  /** A problem of the header line. */
  header?: boolean;
  message: string;
}

/** One order line: part (or all) of one input row. */
export interface PlannedLine {
  row: number;
  productId: string;
  skuId: string;
  amount: number;
  quantity: number;
  /** Unit number within its input row of this line's first unit (1-based). */
  firstUnit: number;
  requiredFields?: Record<string, string>;
  /**
   * The buyer's ref of the row (InputRow.ref), carried with the plan so the output needs
   * no per-row memory. Not part of what the order buys (refs.ts leaves it out).
   */
  ref?: string;
  /** Estimated USD per unit (face value at the live rates), for limits and totals only. */
  unitUsd: number;
}

export interface PlannedOrder {
  ref: string;
  lines: PlannedLine[];
}

/** Limits the planner respects (section 8); a missing limit is no limit. */
export interface PlanLimits {
  maxItemsPerOrder: number;
  maxQuantityPerItem: number;
  maxOrderAmountUSD: number;
}

export const OUTPUT_COLUMNS = [
  'row',
  'ref',
  'externalRef',
  'checkoutId',
  'productId',
  'skuId',
  'amount',
  'index',
  'status',
  'cardCode',
  'cardPin',
  'cardUrl',
  'giftCardId',
  'expiresAt',
  'errorMessage',
] as const;

/** One delivered or failed unit: a line of the output file. */
export interface OutputRecord {
  row: number;
  ref: string;
  externalRef: string;
  checkoutId: string | null;
  productId: string;
  skuId: string;
  amount: number;
  index: number;
  status: string;
  cardCode: string | null;
  cardPin: string | null;
  cardUrl: string | null;
  giftCardId: string | null;
  expiresAt: number | null;
  errorMessage: string | null;
}

export interface PlanEstimate {
  orders: number;
  lines: number;
  units: number;
  /** Estimated price in USD (unitUsd: the catalog's price per face unit). */
  usd: number;
  /** Face value per currency of the denominations (each product's productCurrency). */
  perCurrency: Map<string, number>;
  /** Estimated price in USD of the face value in each of those currencies. */
  usdPerCurrency: Map<string, number>;
  /** Units per productId (a split keeps them: the parts share the order's units). */
  unitsPerProduct: Map<string, number>;
}

export interface BoughtSoFar {
  batch: string;
  orders: number;
  units: number;
  /** Estimated at the plan's rates: what a second purchase of the same rows would cost. */
  usd: number;
  /** Input rows (1-based) with at least one unit bought, ascending. */
  rows: number[];
  checkoutIds: string[];
  /** Orders among them whose outcome is unknown (submitted, no answer kept): the service may have charged them. */
  uncertain: number;
  /** Orders among them without a price: a journal `order rebuy` rebuilt from a codes file keeps none. */
  unpriced: number;
}

export interface Amount {
  currency: string;
  amount: number;
}

export interface ChargedSum {
  orders: number;
  /** Per payment currency ('' when the service left it out: shown as such, never assumed USD). */
  amounts: Amount[];
  /** Orders among `orders` whose total no answer has told yet. */
  totalUnknown: number;
}

export interface RunMoney {
  /** Orders of the plan (split orders replaced by their parts). */
  orders: number;
  thisRun: ChargedSum;
  earlierRuns: ChargedSum;
  /** Both together: the batch so far (summed on its own, not from the two rounded sums). */
  batch: ChargedSum;
  /** Created (charged) orders whose codes this run has not read yet: the next run collects them. */
  processing: number;
  /** Refused by the service: nothing was charged for them. */
  refused: number;
  /** Sent without a known answer: the service may have charged them; the next run finds out. */
  unknown: number;
  /** Never created (not sent yet, or answered that nothing was done): nothing charged. */
  unsent: number;
}

export interface FailureSample {
  row: number;
  index: number;
  productId: string;
  checkoutId: string | null;
  errorMessage: string;
}

export type OutputFormat = 'csv' | 'json' | 'xlsx';

export interface BalanceShortfall {
  /**
   * About how much more USD the remaining orders need (their estimated price, plan.ts
   * unitUsd, minus the balance); undefined when the balance could not be read.
   */
  missingUsd: number | undefined;
  /** The live balance, or null when it could not be read. */
  balanceUsd: number | null;
  /** Estimated price of the remaining orders. */
  remainingUsd: number;
  remainingOrders: number;
}
