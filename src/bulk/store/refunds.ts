/**
 * Refund records: what `refund batch` asked for, journaled in the batch's journal like
 * the orders' own records, because the service has no way to read a refund back (spec
 * section 4: not shown). An `refund-intent` is durable before the request is sent and
 * the answer (or the error) after it. Folded per checkoutId into a `RefundState`: a
 * request whose answer is recorded is never sent again; an intent without an answer
 * means the earlier request's outcome was lost, and is sent again only when asked
 * (`--retry-unknown`).
 */

/** The fields of each record are those of the refund log of earlier versions (batch-journal.ts). */
export type RefundRecord =
  | { t: 'refund-intent'; batch: string; checkoutId: string; ref: string; at: number }
  | {
      t: 'refund-answer';
      batch: string;
      checkoutId: string;
      refundId: string;
      status: string;
      httpStatus: number;
      totalAmount?: number;
      currency?: string;
      at: number;
    }
  | {
      t: 'refund-error';
      batch: string;
      checkoutId: string;
      code: string;
      message: string;
      /** `not-applied`: the service refused; `maybe-applied`: the answer was lost. */
      outcome: string;
      at: number;
    };

/** What the batch's records say of one order's refund: a plain snapshot. */
export interface RefundState {
  answer?: Extract<RefundRecord, { t: 'refund-answer' }>;
  /** An intent (or an error) after which the outcome is unknown. */
  unknown: boolean;
  /** The last request's intent, kept so the state can be written elsewhere again (`refundSummary`). */
  intent?: Extract<RefundRecord, { t: 'refund-intent' }>;
  lastError?: Extract<RefundRecord, { t: 'refund-error' }>;
}

export function isRefundRecord(record: { t: string }): record is RefundRecord {
  return record.t === 'refund-intent' || record.t === 'refund-answer' || record.t === 'refund-error';
}

/** Folds one refund record into the states, by checkoutId. */
export function foldRefund(states: Map<string, RefundState>, record: RefundRecord): void {
  const state = states.get(record.checkoutId) ?? { unknown: false };
  states.set(record.checkoutId, state);
  if (record.t === 'refund-intent') {
    state.intent = record;
    if (!state.answer) state.unknown = true;
  } else if (record.t === 'refund-answer') {
    state.answer = record;
    state.unknown = false;
  } else {
    state.lastError = record;
    // A refused request did nothing: it may be asked again. A lost answer stays unknown.
    if (!state.answer) state.unknown = record.outcome === 'maybe-applied';
  }
}

/**
 * The records that carry these states into another journal (a refund log of an earlier
 * version migrated, a copy's records the other copy lacks): the answer of an answered
 * order, the intent of one whose outcome is unknown, nothing for one that was refused
 * (it may be asked again anyway). Appended after any records, they can only keep or
 * add an answer and keep or add an unknown, never clear one, so carrying them twice (a
 * crash before the source is archived) changes nothing.
 */
export function refundSummary(states: ReadonlyMap<string, RefundState>): RefundRecord[] {
  const records: RefundRecord[] = [];
  for (const state of states.values()) {
    if (state.answer) records.push(state.answer);
    else if (state.unknown && state.intent) records.push(state.intent);
  }
  return records;
}
