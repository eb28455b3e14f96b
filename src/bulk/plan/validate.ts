/**
 * Preflight checks of every parsed row against the live catalog and account, before
 * any money moves. Pure: the caller fetches the catalog, account and rates.
 */

import { decimalText } from '../../decimal.js';
import { formatMoney } from '../../io/format.js';
import { UnknownCurrencyError } from '../../money.js';
import type { Account } from '../../schemas/account.js';
import { type Product, requiredFieldNames } from '../../schemas/catalog.js';
import type { Rates } from '../../schemas/rates.js';
import { checkGrid, describeNeighbours } from '../../sku-grid.js';
import type { InputRow, PlanLimits, RowError } from '../types.js';
import { unitUsd } from './plan.js';

export function validateAccount(account: Pick<Account, 'status' | 'statusNote'>): RowError[] {
  if (account.status === 'suspended') {
    return [{ message: `the account is suspended${account.statusNote ? `: ${account.statusNote}` : ''}` }];
  }
  return [];
}

export interface ValidationContext {
  products: Map<string, Product>;
  limits: PlanLimits;
  rates: Rates;
}

export function productIndex(products: Product[]): Map<string, Product> {
  return new Map(products.map((p) => [p.productId, p]));
}

/** The row's problems against the catalog and limits, each naming the row's line and ref. */
export function validateRow(row: InputRow, ctx: ValidationContext): RowError[] {
  const errors = checkRow(row, ctx);
  if (errors.length === 0 || (row.line === undefined && !row.ref)) return errors;
  const where = {
    ...(row.line !== undefined ? { line: row.line } : {}),
    ...(row.ref ? { ref: row.ref } : {}),
  };
  return errors.map((e) => ({ ...e, ...where }));
}

function checkRow(row: InputRow, ctx: ValidationContext): RowError[] {
  const errors: RowError[] = [];
  const at = row.row;
  const product = ctx.products.get(row.productId);
  if (!product) return [{ row: at, message: `product "${row.productId}" is not in the catalog` }];
  const sku = product.skus.find((s) => s.id === row.skuId);
  if (!sku) return [{ row: at, message: `SKU "${row.skuId}" does not belong to product "${row.productId}"` }];
  if (row.amount < sku.min || row.amount > sku.max) {
    errors.push({
      row: at,
      message: `amount ${row.amount} is outside ${sku.min}..${sku.max} for SKU ${sku.id}`,
    });
  } else {
    // Where the grid starts is a spec gap: only what is off both readings is refused.
    const grid = checkGrid(row.amount, sku, 'either');
    if (!grid.ok) {
      const near = describeNeighbours(grid);
      errors.push({
        row: at,
        message: `amount ${decimalText(row.amount)} is not on the SKU's step of ${sku.changeStep} from ${sku.min}${near ? `: ${near}` : ''}`,
      });
    }
  }
  const names = requiredFieldNames(product.requiredFields);
  if (names) {
    const missing = names.filter((n) => !row.requiredFields?.[n]);
    if (missing.length) {
      errors.push({
        row: at,
        message: `missing required field${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (add field.${missing[0]} or a requiredFields column)`,
      });
    }
  }
  try {
    const usdOf = unitUsd(row.amount, product, sku, ctx.rates);
    if (usdOf > ctx.limits.maxOrderAmountUSD) {
      errors.push({
        row: at,
        message: `one unit (about ${formatMoney(usdOf, 'USD')}) exceeds the account's maxOrderAmountUSD of ${ctx.limits.maxOrderAmountUSD}`,
      });
    }
  } catch (error) {
    if (error instanceof UnknownCurrencyError) errors.push({ row: at, message: error.message });
    else throw error;
  }
  return errors;
}
