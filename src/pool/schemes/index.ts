/** Payment schemes: pure functions from shares and a confirmed block reward to exact credits. */

export { PAYMENT_SCHEME_NAMES } from '../../config/payments-schema.js';
export { computeSplit, type SplitInput } from './compute-split.js';
export { type FeeAmounts, feeAmounts } from './fee-amounts.js';
export { type OrphanedRoundRule, orphanedRoundRule } from './orphaned-round-rule.js';
export { isPaymentSchemeName, type PaymentSchemeName } from './payment-scheme-name.js';
export { type PplnsSplitInput, pplnsSplit } from './pplns.js';
export { pplnsWindowDifficulty } from './pplns-window.js';
export { type PplnsWindowWeights, pplnsWindowWeights } from './pplns-window-weights.js';
export { type PropSplitInput, propSplit } from './prop.js';
export { SCHEME_ERROR_CODES, SchemeError, type SchemeErrorCode } from './scheme-error.js';
export { type SoloSplitInput, soloSplit } from './solo.js';
export { splitProportionally } from './split-proportionally.js';
export type { EmptyRoundPolicy, FeePolicy, PaymentSplit, ShareRecord } from './types.js';
export { type WeightedSplitInput, weightedSplit } from './weighted-split.js';
