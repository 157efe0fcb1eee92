import { PAYMENT_SCHEME_NAMES } from '../../config/payments-schema.js';

/** A payment scheme as the config and the ledger spell it (the list lives with the config). */
export type PaymentSchemeName = (typeof PAYMENT_SCHEME_NAMES)[number];

export function isPaymentSchemeName(value: unknown): value is PaymentSchemeName {
  return typeof value === 'string' && (PAYMENT_SCHEME_NAMES as readonly string[]).includes(value);
}
