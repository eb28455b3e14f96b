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
