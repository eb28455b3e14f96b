/**
 * Registers the operator commands of issue 5 in one go (one entry in program.ts):
 * deposit, checkout, payment-methods, refund and business. `account set-markup`
 * lives with the account command.
 */
import { registerBusiness } from '../business/index.js';
import { registerCheckout } from '../checkout/index.js';
import { registerPaymentMethods } from '../payment-methods/index.js';
import { registerRefund } from '../refund/index.js';
import type { Register } from '../types.js';
import { registerDeposit } from './index.js';

export const registerOperator: Register = (program, contextFor) => {
  for (const register of [
    registerDeposit,
    registerCheckout,
    registerPaymentMethods,
    registerRefund,
    registerBusiness,
  ]) {
    register(program, contextFor);
  }
};
