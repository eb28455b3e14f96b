/**
 * Deposits (balance top-ups). Creation carries no externalRef, so it is never
 * repeated on a timeout or 5xx: a second call could open a second invoice.
 */
import type { ListRequest } from '../schemas/common.js';
import {
  type CreateDepositRequest,
  CreateDepositResponse,
  DepositList,
  GetDepositResponse,
} from '../schemas/deposits.js';
import type { HttpClient } from './http.js';

export async function createDeposit(http: HttpClient, body: CreateDepositRequest) {
  const res = await http.post('/b2b/deposits', body, CreateDepositResponse);
  // Fields of the created deposit beyond `payment` are not shown: read the id wherever it is.
  const depositId = res.data.depositId ?? res.data.deposit?.depositId;
  return { ...res, depositId };
}

export function getDeposit(http: HttpClient, depositId: string) {
  return http.get(`/b2b/deposits/${encodeURIComponent(depositId)}`, GetDepositResponse);
}

export function listDeposits(http: HttpClient, query: ListRequest) {
  return http.get('/b2b/deposits', DepositList, { ...query });
}

/**
 * The deposit a create made, when its answer carried no id (the spec shows only the
 * invoice): among the pending deposits, the one with this amount and payment currency
 * (and, to tell several apart, the invoice's expiry), not among `before` (the pending
 * ones listed before the create). Undefined unless exactly one fits: never a guess.
 */
export async function findCreatedDeposit(
  http: HttpClient,
  created: {
    amount: number;
    paymentCurrency: string;
    expiresAt?: number | null;
    before?: ReadonlySet<string>;
  },
): Promise<string | undefined> {
  const list = await listDeposits(http, {
    status: 'pending',
    sortBy: 'createdAt',
    sortOrder: 'desc',
    limit: 100,
  });
  let fits = list.data.data.filter(
    (d) =>
      !created.before?.has(d.depositId) &&
      Math.abs(d.amount - created.amount) < 1e-9 &&
      (d.paymentCurrency === undefined ||
        d.paymentCurrency.toUpperCase() === created.paymentCurrency.toUpperCase()),
  );
  if (fits.length > 1 && typeof created.expiresAt === 'number')
    fits = fits.filter((d) => d.expiresAt === created.expiresAt);
  return fits.length === 1 ? fits[0]?.depositId : undefined;
}

/** The ids of the pending deposits now (to tell a new one from them). */
export async function pendingDepositIds(http: HttpClient): Promise<Set<string>> {
  const list = await listDeposits(http, { status: 'pending', limit: 100 });
  return new Set(list.data.data.map((d) => d.depositId));
}
