import { FuegoPoolError } from '../../errors.js';

/**
 * The one catalogue of API error codes: HTTP status and the message a client sees. Every error
 * reply is `{ "error": { "code", "message" } }`; the message may add detail after the catalogue
 * text (e.g. why an address is invalid). test/servers/api/api-errors.test.ts keeps the catalogue,
 * the reply schema and the handler in sync.
 */
export const API_ERRORS = {
  BAD_REQUEST: { status: 400, message: 'the request is not valid' },
  INVALID_ADDRESS: { status: 400, message: 'not a valid Fuego address' },
  THRESHOLD_BELOW_MINIMUM: { status: 400, message: 'the threshold is below the pool minimum' },
  THRESHOLD_ABOVE_MAXIMUM: { status: 400, message: 'the threshold is above the highest the pool allows' },
  TIMESTAMP_OUT_OF_RANGE: {
    status: 400,
    message: "the message's timestamp is older than a day or ahead of the pool's clock",
  },
  MALFORMED_SIGNATURE: {
    status: 400,
    message: 'not a sign_message signature ("Sig" and 88 base58 characters)',
  },
  SIGNATURE_TRUNCATED: {
    status: 400,
    message: 'the signature is shorter than a signature (the wallet cuts one holding a 0 byte): sign again',
  },
  SIGNATURE_TOO_LONG: {
    status: 400,
    message:
      "send only the signature, the first 91 characters: the wallet prints its memory after it, which can hold the wallet's secret keys",
  },
  UNAUTHORIZED: { status: 401, message: 'a valid admin token is required' },
  BAD_SIGNATURE: {
    status: 403,
    message: "the signature is not the address's wallet's signature of this message",
  },
  ADMIN_DISABLED: { status: 403, message: 'admin endpoints are disabled (no admin token configured)' },
  NOT_FOUND: { status: 404, message: 'no such resource' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'the request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'send the request body as application/json' },
  STALE_TIMESTAMP: {
    status: 409,
    message: 'a message with the same or a later timestamp was already accepted for this address',
  },
  TOO_MANY_REQUESTS: { status: 429, message: 'too many signed requests right now; retry in a second' },
  RATE_LIMITED: { status: 429, message: 'too many requests from your address; retry later' },
  TOO_MANY_WAITERS: { status: 503, message: 'too many long-poll requests are waiting; retry later' },
  TOO_MANY_WAITERS_FROM_PEER: {
    status: 429,
    message: 'too many long-poll requests from this address are waiting; retry later',
  },
  STORE_UNAVAILABLE: { status: 503, message: 'the pool database is unavailable; retry later' },
  INTERNAL: { status: 500, message: 'internal error' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ApiErrorCode = keyof typeof API_ERRORS;

export const API_ERROR_CODES = Object.keys(API_ERRORS) as [ApiErrorCode, ...ApiErrorCode[]];

export class ApiError extends FuegoPoolError<ApiErrorCode> {
  constructor(code: ApiErrorCode, detail?: string, data: Record<string, unknown> = {}) {
    const base = API_ERRORS[code].message;
    super(code, detail === undefined ? base : `${base}: ${detail}`, data);
  }

  get status(): number {
    return API_ERRORS[this.code].status;
  }
}

export interface ErrorReply {
  readonly error: { readonly code: ApiErrorCode; readonly message: string };
}

export function errorReply(error: ApiError): ErrorReply {
  return { error: { code: error.code, message: error.message } };
}
