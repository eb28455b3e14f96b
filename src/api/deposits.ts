/**
 * Deposits (balance top-ups). Creation carries no externalRef, so it is never
 * repeated on a timeout or 5xx: a second call could open a second invoice.
 */
import { UnexpectedResponseError } from '../errors.js';
import type { ListQuery } from '../schemas/common.js';
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

export interface DepositListQuery extends Partial<ListQuery> {
  status?: string;
}

export function listDeposits(http: HttpClient, query: DepositListQuery) {
  return http.get('/b2b/deposits', DepositList, { ...query });
}

/** The id of a created deposit, or a clear error when the service did not return one. */
export function requireDepositId(res: { depositId?: string; status: number; requestId?: string }): string {
  if (!res.depositId) {
    throw new UnexpectedResponseError(
      res.status,
      'the deposit was created but the response carries no depositId (neither `depositId` nor `deposit.depositId`)',
      undefined,
      res.requestId,
    );
  }
  return res.depositId;
}
