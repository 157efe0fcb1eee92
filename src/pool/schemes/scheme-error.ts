import { FuegoPoolError } from '../../errors.js';

/**
 * Every reason a payment scheme refuses its input. Kept as a list so a test can check that the
 * catalogue and the codes actually thrown stay in step.
 */
export const SCHEME_ERROR_CODES = [
  /** Reward not a bigint, ≤ 0, or above the uint64 a chain amount can hold. */
  'INVALID_REWARD',
  /** Fee or finder bonus not an integer number of basis points in 0..10000, or an empty fee address. */
  'INVALID_FEE',
  /** Finder not a non-empty string. */
  'INVALID_FINDER',
  /** A share or round contribution with difficulty ≤ 0 (or not a bigint), or an empty address. */
  'INVALID_SHARE',
  /** PPLNS window ≤ 0, or a window factor / network difficulty that cannot make one. */
  'INVALID_WINDOW',
  /** An amount or weight given to `splitProportionally` that it cannot divide. */
  'INVALID_WEIGHTS',
  /** No counted shares and the caller asked for `emptyRound: 'reject'`. */
  'EMPTY_ROUND',
  /** `computeSplit` was handed a scheme name it does not know (config bypassed its schema). */
  'UNKNOWN_SCHEME',
] as const;

export type SchemeErrorCode = (typeof SCHEME_ERROR_CODES)[number];

/** Input a payment scheme will not turn into money. Nothing is credited when this is thrown. */
export class SchemeError extends FuegoPoolError<SchemeErrorCode> {}
