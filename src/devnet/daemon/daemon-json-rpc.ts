import { canonicalJson, parseJsonOrUndefined } from '../http/canonical-json.js';
import type { HttpOutcome } from '../http/rpc-http-server.js';

/** Error codes of fuegod's JSON-RPC (CORE_RPC_ERROR_CODE_* plus the JSON-RPC 2.0 ones). */
export const DaemonErrorCode = {
  WRONG_PARAM: -1,
  TOO_BIG_HEIGHT: -2,
  TOO_BIG_RESERVE_SIZE: -3,
  WRONG_WALLET_ADDRESS: -4,
  INTERNAL_ERROR: -5,
  WRONG_BLOCKBLOB: -6,
  BLOCK_NOT_ACCEPTED: -7,
  CORE_BUSY: -9,
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INTERNAL_JSON_ERROR: -32603,
} as const;

/** A method failure, turned into `{"error":{"code","message"}}` by the envelope. */
export class DaemonRpcError extends Error {
  readonly rpcCode: number;
  constructor(rpcCode: number, message: string) {
    super(message);
    this.name = 'DaemonRpcError';
    this.rpcCode = rpcCode;
  }
}

/** The headers fuegod puts on every reply; JSON-RPC replies also carry a second, capitalised Content-Type. */
export const DAEMON_SERVER_HEADER = 'Fuego (CryptoNote-based) HTTP server';

export function daemonHeaders(jsonRpc: boolean): [string, string][] {
  const headers: [string, string][] = [['Access-Control-Allow-Origin', '*']];
  if (jsonRpc) headers.push(['Content-Type', 'application/json']);
  headers.push(['Server', DAEMON_SERVER_HEADER], ['content-type', 'application/json']);
  return headers;
}

/**
 * Reads request fields the way the daemon's key-value JSON loader does: a missing field keeps its
 * default, a present field of the wrong JSON type fails with `-32603 "JsonValue type is not X"`, and a
 * negative integer read into an unsigned field wraps around (so `-1` becomes 2^64 − 1).
 */
export class DaemonParams {
  readonly #object: Record<string, unknown>;

  private constructor(object: Record<string, unknown>) {
    this.#object = object;
  }

  /** For methods whose request has fields: params must be an object. */
  static object(params: unknown): DaemonParams {
    if (params === undefined || params === null || typeof params !== 'object') throw notArrayOrObject();
    if (Array.isArray(params)) throw typeError('OBJECT');
    return new DaemonParams(params as Record<string, unknown>);
  }

  /** For methods without fields: any object or array is fine. */
  static empty(params: unknown): void {
    if (params === undefined || params === null || typeof params !== 'object') throw notArrayOrObject();
  }

  /** For methods whose request is a JSON array (`submitblock`, `on_getblockhash`). */
  static array(params: unknown): unknown[] {
    if (params === undefined || params === null || typeof params !== 'object') throw notArrayOrObject();
    if (!Array.isArray(params)) throw typeError('ARRAY');
    return params;
  }

  uint64(key: string, fallback = 0n): bigint {
    const value = this.#object[key];
    if (value === undefined) return fallback;
    return toUint(value, 64);
  }

  uint32(key: string, fallback = 0): number {
    const value = this.#object[key];
    if (value === undefined) return fallback;
    return Number(toUint(value, 32));
  }

  string(key: string, fallback = ''): string {
    const value = this.#object[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'string') throw typeError('STRING');
    return value;
  }

  stringArray(key: string): string[] {
    const value = this.#object[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw typeError('ARRAY');
    return value.map((item) => {
      if (typeof item !== 'string') throw typeError('STRING');
      return item;
    });
  }
}

/** An array element or field read as an unsigned integer of `bits` width (wrapping negatives). */
export function toUint(value: unknown, bits: 32 | 64): bigint {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw typeError('INTEGER');
  const modulus = 1n << BigInt(bits);
  const big = BigInt(value);
  return ((big % modulus) + modulus) % modulus;
}

function typeError(kind: string): DaemonRpcError {
  return new DaemonRpcError(DaemonErrorCode.INTERNAL_JSON_ERROR, `JsonValue type is not ${kind}`);
}

function notArrayOrObject(): DaemonRpcError {
  return typeError('ARRAY or OBJECT');
}

export interface JsonRpcCall {
  readonly method: string;
  readonly params: unknown;
}

export type JsonRpcMethodHandler = (params: unknown) => unknown;

/**
 * fuegod's `/json_rpc` envelope:
 * - unparsable body (or GET with no body) -> `-32700 Parse error`, no `id`;
 * - a JSON value that is not an object -> `-32603 JsonValue type is not OBJECT`, no `id`;
 * - no `method` -> `-32600 Invalid request`, no `id`; a non-string method -> `-32603 ... STRING`, no `id`;
 * - otherwise the reply carries the request's `id` verbatim (string or number) and either
 *   `result` or the handler's error (`-32601 Method not found` for an unknown name).
 */
export function handleDaemonJsonRpc(
  body: string,
  lookup: (method: string) => JsonRpcMethodHandler | undefined,
): HttpOutcome {
  const parsed = parseJsonOrUndefined(body);
  if (parsed === undefined)
    return envelope({ error: { code: DaemonErrorCode.PARSE_ERROR, message: 'Parse error' } });
  const request = parsed.value;
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    return envelope({
      error: { code: DaemonErrorCode.INTERNAL_JSON_ERROR, message: 'JsonValue type is not OBJECT' },
    });
  }
  const fields = request as Record<string, unknown>;
  if (!('method' in fields)) {
    return envelope({ error: { code: DaemonErrorCode.INVALID_REQUEST, message: 'Invalid request' } });
  }
  if (typeof fields['method'] !== 'string') {
    return envelope({
      error: { code: DaemonErrorCode.INTERNAL_JSON_ERROR, message: 'JsonValue type is not STRING' },
    });
  }
  const id = fields['id'];
  const withId = id === undefined ? {} : { id };
  const handler = lookup(fields['method']);
  if (!handler) {
    return envelope({
      ...withId,
      error: { code: DaemonErrorCode.METHOD_NOT_FOUND, message: 'Method not found' },
    });
  }
  try {
    const result = handler(fields['params']);
    return envelope({ ...withId, result });
  } catch (error) {
    if (error instanceof DaemonRpcError) {
      return envelope({ ...withId, error: { code: error.rpcCode, message: error.message } });
    }
    const message = error instanceof Error ? error.message : String(error);
    return envelope({ ...withId, error: { code: DaemonErrorCode.INTERNAL_JSON_ERROR, message } });
  }
}

function envelope(fields: Record<string, unknown>): HttpOutcome {
  return {
    kind: 'reply',
    status: 200,
    body: canonicalJson({ jsonrpc: '2.0', ...fields }),
    headers: daemonHeaders(true),
  };
}

/** A direct-path (non JSON-RPC) JSON reply. */
export function daemonJsonReply(value: unknown, status = 200): HttpOutcome {
  return { kind: 'reply', status, body: canonicalJson(value), headers: daemonHeaders(false) };
}

/** The daemon's 404 for any path it does not serve. */
export function daemonNotFound(): HttpOutcome {
  return { kind: 'reply', status: 404, body: 'Requested url is not found\n', headers: daemonHeaders(false) };
}
