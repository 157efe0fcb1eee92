import { FuegoPoolError } from '../errors.js';

export type CodecErrorCode =
  | 'BAD_HEX'
  | 'TRUNCATED'
  | 'VARINT_OVERFLOW'
  | 'VARINT_NON_CANONICAL'
  | 'UNKNOWN_TAG'
  | 'TRAILING_BYTES'
  | 'INVALID_VALUE';

/** A byte string that is not a valid Fuego structure. `data.offset` is where decoding stopped. */
export class CodecError extends FuegoPoolError<CodecErrorCode> {}
