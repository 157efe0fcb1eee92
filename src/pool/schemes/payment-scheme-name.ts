/** The payment schemes the pool knows, as they are spelled in config and in the ledger. */
export const PAYMENT_SCHEME_NAMES = ['pplns', 'prop', 'solo'] as const;

export type PaymentSchemeName = (typeof PAYMENT_SCHEME_NAMES)[number];

export function isPaymentSchemeName(value: unknown): value is PaymentSchemeName {
  return typeof value === 'string' && (PAYMENT_SCHEME_NAMES as readonly string[]).includes(value);
}
