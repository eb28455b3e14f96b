import { describe, expect, it } from 'vitest';
import { apiErrorFrom, ExitCode, isInsufficientBalanceError } from '../../src/errors.js';

describe('apiErrorFrom: one mapping from service errors to exit codes', () => {
  it.each([
    [
      400,
      'VALIDATION_ERROR',
      'amount is off the changeStep grid',
      { field: 'amount', reason: 'off_step' },
      ExitCode.usage,
    ],
    [400, 'VALIDATION_ERROR', 'No exchange rate for currency XYZ', undefined, ExitCode.usage],
    [
      400,
      'VALIDATION_ERROR',
      'Balance payment failed',
      { reason: 'insufficient_balance' },
      ExitCode.stoppedResumable,
    ],
    // Production sends no details (spec section 7): the message still tells.
    [400, 'VALIDATION_ERROR', 'Insufficient balance', undefined, ExitCode.stoppedResumable],
    [422, 'INSUFFICIENT_BALANCE', 'not enough', undefined, ExitCode.stoppedResumable],
    [422, 'PAYMENT_ERROR', 'payment failed', undefined, ExitCode.stoppedResumable],
    [422, 'B2B_LIMIT_EXCEEDED', 'daily cap', { limit: 'dailySpendCapUSD' }, ExitCode.stoppedResumable],
    [401, 'UNAUTHORIZED', 'bad key', undefined, ExitCode.service],
    [403, 'FORBIDDEN', 'scope', undefined, ExitCode.service],
    [404, 'NOT_FOUND', 'no such order', undefined, ExitCode.service],
    [409, 'CONFLICT', 'externalRef used on the other surface', undefined, ExitCode.service],
    [502, 'EXTERNAL_SERVICE_ERROR', 'upstream', undefined, ExitCode.service],
  ])('%i %s (%s) -> %i', (status, code, message, details, expected) => {
    expect(apiErrorFrom({ status, code, message, details }).exitCode).toBe(expected);
  });

  it('insufficient balance is only recognised on 400 or by its own code', () => {
    expect(isInsufficientBalanceError(404, 'NOT_FOUND', 'insufficient balance', undefined)).toBe(false);
    expect(isInsufficientBalanceError(400, 'VALIDATION_ERROR', 'x', { reason: 'INSUFFICIENT_FUNDS' })).toBe(
      true,
    );
  });
});
