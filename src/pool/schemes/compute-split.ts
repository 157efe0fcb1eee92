import { type PplnsSplitInput, pplnsSplit } from './pplns.js';
import { type PropSplitInput, propSplit } from './prop.js';
import { SchemeError } from './scheme-error.js';
import { type SoloSplitInput, soloSplit } from './solo.js';
import type { PaymentSplit } from './types.js';

/** One block to pay, tagged with the scheme it was mined under. */
export type SplitInput =
  | ({ readonly scheme: 'pplns' } & PplnsSplitInput)
  | ({ readonly scheme: 'prop' } & PropSplitInput)
  | ({ readonly scheme: 'solo' } & SoloSplitInput);

/** Routes a block to its scheme; each scheme validates its own input and throws SchemeError. */
export function computeSplit(input: SplitInput): PaymentSplit {
  switch (input.scheme) {
    case 'pplns':
      return pplnsSplit(input);
    case 'prop':
      return propSplit(input);
    case 'solo':
      return soloSplit(input);
    default: {
      const scheme: never = input;
      throw new SchemeError('UNKNOWN_SCHEME', 'unknown payment scheme', {
        scheme: String((scheme as { scheme?: unknown }).scheme),
      });
    }
  }
}
