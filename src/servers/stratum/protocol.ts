import { FuegoPoolError } from '../../errors.js';
import type {
  LoginRequest,
  LoginResult,
  SharedBlobHex,
  StratumJob,
  SubmitRequest,
} from '../../pool/stratum-backend.js';
import { StratumError } from '../../pool/stratum-errors.js';

/**
 * The stratum wire format as XMRig speaks it (shared/spec/stratum.md §1, §3): one JSON object per
 * line in each direction. This module only parses and encodes; it never decides anything about a
 * session. Error words reach the wire only through StratumError (src/pool/stratum-errors.ts).
 */

/** XMRig sends integers; other miners send strings. Echoed back with the same JSON type. */
export type RequestId = number | string;

export interface StratumRequest {
  readonly id: RequestId;
  /** '' when the request had no string `method` (answered with INVALID_METHOD). */
  readonly method: string;
  /** `{}` when `params` was absent or not an object; method handlers then refuse it. */
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * A line that cannot be answered because there is no id to echo (or no object at all). The
 * connection records the violation against the peer's IP and closes: XMRig never sends such a line.
 */
export type ProtocolViolationCode =
  | 'NOT_JSON'
  | 'NOT_AN_OBJECT'
  | 'BAD_ID'
  | 'LINE_TOO_LONG'
  | 'TLS_ON_PLAIN_PORT';

export class StratumProtocolError extends FuegoPoolError<ProtocolViolationCode> {}

export type ParsedLine =
  | { readonly request: StratumRequest; readonly violation?: undefined }
  | { readonly request?: undefined; readonly violation: StratumProtocolError };

/** XMRig 6.16.0 drops any line shorter than this as "JSON decode failed" (spec §1). */
export const MIN_REPLY_BYTES = 32;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function violation(code: ProtocolViolationCode, message: string): ParsedLine {
  return { violation: new StratumProtocolError(code, message) };
}

/** Parses one request line (without its "\n"). Never throws. */
export function parseRequestLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return violation('NOT_JSON', 'request line is not JSON');
  }
  if (!isPlainObject(value)) return violation('NOT_AN_OBJECT', 'request is not a JSON object');
  const id = value['id'];
  // An id we could not echo exactly (fraction, beyond 2^53, null, object) is unanswerable.
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) {
    return violation('BAD_ID', 'request id must be an integer or a string');
  }
  const method = typeof value['method'] === 'string' ? value['method'] : '';
  const params = isPlainObject(value['params']) ? value['params'] : {};
  return { request: { id, method, params } };
}

/** The session id a submit/getjob/keepalived names in `params.id`, if it is a string. */
export function readSessionId(params: Readonly<Record<string, unknown>>): string | undefined {
  const id = params['id'];
  return typeof id === 'string' ? id : undefined;
}

/**
 * `login` params. Only `login` is required; a login we cannot read is INVALID_LOGIN (fatal, so the
 * miner reconnects instead of idling). Non-string optional fields are ignored rather than refused,
 * because odd miners send odd types and the backend decides what matters.
 */
export function readLoginParams(params: Readonly<Record<string, unknown>>): LoginRequest {
  const login = params['login'];
  if (typeof login !== 'string' || login.length === 0) {
    throw new StratumError('INVALID_LOGIN', { reason: 'missing login' });
  }
  const pass = typeof params['pass'] === 'string' ? params['pass'] : '';
  const agent = params['agent'];
  const rigid = params['rigid'];
  const algoParam = params['algo'];
  let algo: string[] | undefined;
  if (Array.isArray(algoParam)) algo = algoParam.filter((a): a is string => typeof a === 'string');
  else if (typeof algoParam === 'string') algo = [algoParam];
  return {
    login,
    pass,
    ...(typeof agent === 'string' ? { agent } : {}),
    ...(typeof rigid === 'string' && rigid.length > 0 ? { rigid } : {}),
    ...(algo !== undefined ? { algo } : {}),
  };
}

/**
 * `submit` params, type-checked only: the backend checks formats (hex, lengths) and everything
 * else. Unknown fields (`sig`, `commitment`, ...) are ignored.
 */
export function readSubmitParams(params: Readonly<Record<string, unknown>>): SubmitRequest {
  const jobId = params['job_id'];
  const nonce = params['nonce'];
  const result = params['result'];
  const algo = params['algo'];
  if (typeof jobId !== 'string') throw new StratumError('INVALID_PARAMS', { field: 'job_id' });
  if (typeof nonce !== 'string') throw new StratumError('MALFORMED_NONCE');
  if (typeof result !== 'string') throw new StratumError('MALFORMED_RESULT');
  if (algo !== undefined && typeof algo !== 'string')
    throw new StratumError('INVALID_PARAMS', { field: 'algo' });
  return { jobId, nonce, result, ...(typeof algo === 'string' ? { algo } : {}) };
}

/** Only the fields of the wire job, in XMRig's order; internal extras on the object never leak. */
function wireJob(job: StratumJob): StratumJob {
  return { blob: job.blob, job_id: job.job_id, target: job.target, algo: job.algo, height: job.height };
}

function line(json: string): string {
  // All shapes below are longer than 32 bytes already; trailing spaces are still valid JSON.
  return `${json.length < MIN_REPLY_BYTES ? json.padEnd(MIN_REPLY_BYTES, ' ') : json}\n`;
}

/** `{"id":<id>,"jsonrpc":"2.0","error":null,"result":{...}}\n` */
export function encodeResult(id: RequestId, result: object): string {
  return line(`{"id":${JSON.stringify(id)},"jsonrpc":"2.0","error":null,"result":${JSON.stringify(result)}}`);
}

/** `{"id":<id>,"jsonrpc":"2.0","error":{"code":-1,"message":"..."},"result":null}\n` */
export function encodeError(id: RequestId, error: StratumError): string {
  const body = JSON.stringify({ code: -1, message: error.message });
  return line(`{"id":${JSON.stringify(id)},"jsonrpc":"2.0","error":${body},"result":null}`);
}

/**
 * Strings JSON.stringify writes unchanged between quotes: printable ASCII without `"` or `\`.
 * Every job field the pool makes (hex blob, hex job id, hex target, the algo name) is one.
 */
const JSON_PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `{"jsonrpc":"2.0","method":"job","params":{...job}}\n`, with the fields in wireJob's order. It is
 * sent to every miner on every new template, so fields that JSON.stringify would leave as they are
 * are spliced in between quotes (a third of the cost); anything else takes JSON.stringify.
 */
export function encodeJobNotification(job: StratumJob): string {
  const line = encodeJobLine(job);
  return typeof line === 'string' ? line : line.text;
}

/**
 * encodeJobNotification's line, or for a job on a shared blob the same line as a SharedBlobJobLine:
 * the batched writer copies its bytes without making a string (socket-write-batch.ts).
 */
export function encodeJobLine(job: StratumJob): string | SharedBlobJobLine {
  const { sharedBlob, nonceTopHex, jobIdPrefix } = job;
  if (sharedBlob !== undefined && nonceTopHex !== undefined && jobIdPrefix !== undefined) {
    const line = sharedBlobJobLine(job, sharedBlob, nonceTopHex, jobIdPrefix);
    if (line !== undefined) return line;
  } else if (plainJobFields(job) && JSON_PLAIN_STRING.test(job.blob)) {
    return plainJobLine(job.blob, job);
  }
  const { job_id, target, algo, height } = job;
  const params = `{"blob":${JSON.stringify(job.blob)},"job_id":${JSON.stringify(job_id)},"target":${JSON.stringify(target)},"algo":${JSON.stringify(algo)},"height":${JSON.stringify(height)}}`;
  return line(`{"jsonrpc":"2.0","method":"job","params":${params}}`);
}

/** A wire job's fields but the blob. */
type WireJobFields = Pick<StratumJob, 'job_id' | 'target' | 'algo' | 'height'>;

/** Whether every field but the blob may be spliced in between quotes (or, the height, as it is). */
function plainJobFields({ job_id, target, algo, height }: WireJobFields): boolean {
  return (
    Number.isSafeInteger(height) &&
    JSON_PLAIN_STRING.test(job_id) &&
    JSON_PLAIN_STRING.test(target) &&
    JSON_PLAIN_STRING.test(algo)
  );
}

function plainJobLine(blob: string, { job_id, target, algo, height }: WireJobFields): string {
  // Longer than MIN_REPLY_BYTES whatever the fields: no padding.
  return `{"jsonrpc":"2.0","method":"job","params":{"blob":"${blob}","job_id":"${job_id}","target":"${target}","algo":"${algo}","height":${height}}}\n`;
}

/**
 * One shared blob's job line at one target, cut around the two places that differ between its
 * sessions: the top nonce byte's digits inside the blob, and the same digits at the end of the job
 * id (the blob's id prefix and the digits). Plain ASCII, so each part is also kept as its bytes.
 */
interface SharedLineParts {
  readonly jobIdPrefix: string;
  readonly algo: string;
  readonly height: number;
  /** Up to the digits: `{"jsonrpc":...,"blob":"` and the blob's head. */
  readonly beforeTop: string;
  /** The blob's tail, `","job_id":"` and the job id's prefix. */
  readonly betweenTops: string;
  /** `","target":...}}\n`. */
  readonly afterJobId: string;
  readonly beforeTopBytes: Uint8Array;
  readonly betweenTopsBytes: Uint8Array;
  readonly afterJobIdBytes: Uint8Array;
  /** The three parts' bytes together. */
  readonly partsBytes: number;
  /**
   * The whole line as bytes, with the digits of the session it was made for. Every session on one
   * blob has digits as long, so its line is one copy of this with its own digits written over
   * those twice: one copy, not five.
   */
  readonly lineBytes: Uint8Array;
  readonly topLength: number;
}

/**
 * A shared blob's job line for one session, not joined: the cached parts around the session's
 * two digits, every character of them plain ASCII (one byte each). A push makes one per miner;
 * the batched writer copies its bytes (`copyTo`) instead of building, flattening and encoding a
 * ~430-character string, and only a line written through Node's stream asks `text`.
 */
export class SharedBlobJobLine {
  readonly #parts: SharedLineParts;
  readonly #top: string;

  constructor(parts: SharedLineParts, top: string) {
    this.#parts = parts;
    this.#top = top;
  }

  get byteLength(): number {
    return this.#parts.partsBytes + 2 * this.#top.length;
  }

  /** Writes the line's bytes at `offset` (the caller leaves room for `byteLength`); returns how many. */
  copyTo(target: Uint8Array, offset: number): number {
    const parts = this.#parts;
    const top = this.#top;
    if (top.length === parts.topLength) {
      const topAt = offset + parts.beforeTopBytes.length;
      target.set(parts.lineBytes, offset);
      copyAscii(target, topAt, top);
      copyAscii(target, topAt + top.length + parts.betweenTopsBytes.length, top);
      return parts.lineBytes.length;
    }
    let at = copyBytes(target, offset, parts.beforeTopBytes);
    at = copyAscii(target, at, top);
    at = copyBytes(target, at, parts.betweenTopsBytes);
    at = copyAscii(target, at, top);
    return copyBytes(target, at, parts.afterJobIdBytes) - offset;
  }

  get text(): string {
    const parts = this.#parts;
    return parts.beforeTop + this.#top + parts.betweenTops + this.#top + parts.afterJobId;
  }
}

function copyBytes(target: Uint8Array, at: number, bytes: Uint8Array): number {
  target.set(bytes, at);
  return at + bytes.length;
}

function copyAscii(target: Uint8Array, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) target[at + i] = text.charCodeAt(i);
  return at + text.length;
}

/** One shared blob's line parts, by target. */
interface SharedBlobLines {
  readonly blob: SharedBlobHex;
  readonly byTarget: Map<string, SharedLineParts>;
}

/**
 * The last shared blob's: a broadcast hands out a blob to 255 sessions in a row, at a handful of
 * vardiff targets. Undefined while that blob is not plain.
 */
let sharedLines: SharedBlobLines | undefined;

/**
 * A shared blob's job line from its cached parts: per session only its two digits are checked
 * (building and checking the whole line was half of its cost). Undefined when a field would need
 * JSON.stringify.
 */
function sharedBlobJobLine(
  job: StratumJob,
  blob: SharedBlobHex,
  top: string,
  jobIdPrefix: string,
): SharedBlobJobLine | undefined {
  if (!isPlainShort(top)) return undefined;
  if (sharedLines?.blob !== blob) {
    if (!JSON_PLAIN_STRING.test(blob.head) || !JSON_PLAIN_STRING.test(blob.tail)) return undefined;
    sharedLines = { blob, byTarget: new Map() };
  }
  let parts = sharedLines.byTarget.get(job.target);
  if (
    parts === undefined ||
    parts.algo !== job.algo ||
    parts.height !== job.height ||
    parts.jobIdPrefix !== jobIdPrefix
  ) {
    const wire = { job_id: jobIdPrefix, target: job.target, algo: job.algo, height: job.height };
    if (!plainJobFields(wire)) return undefined;
    const marker = '\u0000';
    const [beforeTop = '', betweenTops = '', afterJobId = ''] = plainJobLine(
      `${blob.head}${marker}${blob.tail}`,
      { ...wire, job_id: jobIdPrefix + marker },
    ).split(marker);
    const [beforeTopBytes, betweenTopsBytes, afterJobIdBytes] = [beforeTop, betweenTops, afterJobId].map(
      (part) => Buffer.from(part, 'latin1'),
    ) as [Buffer, Buffer, Buffer];
    parts = {
      jobIdPrefix,
      algo: job.algo,
      height: job.height,
      beforeTop,
      betweenTops,
      afterJobId,
      beforeTopBytes,
      betweenTopsBytes,
      afterJobIdBytes,
      partsBytes: beforeTopBytes.length + betweenTopsBytes.length + afterJobIdBytes.length,
      lineBytes: Buffer.from(beforeTop + top + betweenTops + top + afterJobId, 'latin1'),
      topLength: top.length,
    };
    sharedLines.byTarget.set(job.target, parts);
  }
  return new SharedBlobJobLine(parts, top);
}

/** JSON_PLAIN_STRING for the few characters of a job id or nonce byte, without a regular expression. */
function isPlainShort(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}

/** The login result body: string session id, full job, status and extensions (spec §3.2). */
export function loginResultBody(result: LoginResult): object {
  return {
    id: result.sessionId,
    job: wireJob(result.job),
    status: 'OK',
    extensions: [...result.extensions],
  };
}

export function getJobResultBody(job: StratumJob): object {
  return wireJob(job);
}

export const SUBMIT_OK = Object.freeze({ status: 'OK' });
export const KEEPALIVED_OK = Object.freeze({ status: 'KEEPALIVED' });
