import { AddressError, type DecodedAddress, decodeAddress } from '../fuego/address.js';
import type { LoginRequest } from './stratum-backend.js';
import { StratumError } from './stratum-errors.js';

/** Who gets paid for a session: an address written in the login, or an on-chain alias to look up. */
export type LoginPayee =
  | { readonly kind: 'address'; readonly address: string; readonly decoded: DecodedAddress }
  | { readonly kind: 'alias'; readonly alias: string };

export interface ParsedLogin {
  readonly payee: LoginPayee;
  /** Sanitised worker name; "default" when the miner gave none. */
  readonly worker: string;
  /** `+DIFF` from the login, clamped into the allowed range; the session then keeps it (no vardiff). */
  readonly fixedDifficulty: number | undefined;
  /** The login started with `solo:`. */
  readonly solo: boolean;
}

export interface LoginParseOptions {
  /** A `+DIFF` below this is raised to it. */
  readonly minDifficulty: number;
  /** A `+DIFF` above this is lowered to it. */
  readonly maxDifficulty: number;
  /** Address validation with a cache (AddressCache.decode); full validation every time when absent. */
  readonly decodeAddress?: (text: string) => DecodedAddress;
}

export const DEFAULT_WORKER_NAME = 'default';
/** Longer logins are refused unread (an integrated address plus worker and diff fits easily). */
const MAX_LOGIN_LENGTH = 512;
/** UTF-8 bytes of a worker name (the ledger refuses more than 128 UTF-16 units: this stays below). */
const MAX_WORKER_BYTES = 64;
/** What is read of a candidate before NFC: more than composing can bring back under 64 bytes. */
const MAX_WORKER_INPUT_UNITS = 4 * MAX_WORKER_BYTES;
const NOT_WORKER_CHARACTER = /[^\p{L}\p{M}\p{N}._-]/gu;
const SOLO_PREFIX = 'solo:';
const ALIAS_PATTERN = /^@[A-Za-z0-9_-]{1,64}$/;
/** `BODY[+DIFF]`; any number of digits: a value out of range is clamped, never refused. */
const DIFF_SUFFIX = /^(.*?)(?:\+(\d+))?$/s;
/** `PAYEE+DIFF.WORKER`, the order other pools' users write too (a payee has no `.` or `+`). */
const DIFF_BEFORE_WORKER = /^([^.+]*)\+(\d+)\.(.*)$/s;
/** Passwords that mean "nothing" rather than a worker name. */
const EMPTY_PASSWORDS = new Set(['', 'x', 'X', 'password', 'pass']);

/**
 * Parses a stratum login: `[solo:]PAYEE[.WORKER][+DIFF]` (`PAYEE+DIFF.WORKER` too), where PAYEE is
 * a Fuego address (standard or integrated) or `@alias`. Without a `.WORKER` the worker comes from `rigid`, else from `pass`
 * (the part before a `:`, MoneroOcean's `worker:email`), else "default".
 * Anything unparsable is INVALID_LOGIN; the address itself is fully validated (checksum, prefix, keys).
 */
export function parseLogin(request: LoginRequest, options: LoginParseOptions): ParsedLogin {
  const parts = splitLogin(request.login);
  // Capped at a safe integer first: longer digit strings would read as imprecise or Infinity.
  const requested =
    parts.difficultyText === undefined
      ? undefined
      : Math.min(Number(parts.difficultyText), Number.MAX_SAFE_INTEGER);
  return {
    payee: parsePayee(parts.payeeText, options.decodeAddress),
    worker: pickWorker(parts.workerInLogin, request.rigid, request.pass),
    fixedDifficulty:
      requested === undefined
        ? undefined
        : Math.min(options.maxDifficulty, Math.max(options.minDifficulty, requested)),
    solo: parts.solo,
  };
}

/**
 * The address a login pays, as text and unchecked; undefined for an alias or a login that does
 * not parse (parseLogin says why). The pool asks before the costly check of a new address.
 */
export function loginAddressText(request: LoginRequest): string | undefined {
  try {
    const { payeeText } = splitLogin(request.login);
    return payeeText.startsWith('@') ? undefined : payeeText;
  } catch {
    return undefined;
  }
}

interface LoginParts {
  readonly payeeText: string;
  readonly workerInLogin: string | undefined;
  readonly difficultyText: string | undefined;
  readonly solo: boolean;
}

/** `[solo:]PAYEE[.WORKER][+DIFF]` (or `PAYEE+DIFF.WORKER`) into its parts, nothing checked but the length. */
function splitLogin(loginField: unknown): LoginParts {
  const login = typeof loginField === 'string' ? loginField.trim() : '';
  if (login.length === 0 || login.length > MAX_LOGIN_LENGTH) {
    throw new StratumError('INVALID_LOGIN', { reason: 'LOGIN_LENGTH', length: login.length });
  }
  let body = login;
  let solo = false;
  if (body.slice(0, SOLO_PREFIX.length).toLowerCase() === SOLO_PREFIX) {
    solo = true;
    body = body.slice(SOLO_PREFIX.length);
  }
  const diffMatch = DIFF_SUFFIX.exec(body);
  let difficultyText = diffMatch?.[2];
  if (difficultyText !== undefined) body = diffMatch?.[1] ?? '';
  else {
    const diffFirst = DIFF_BEFORE_WORKER.exec(body);
    if (diffFirst !== null) {
      difficultyText = diffFirst[2];
      body = `${diffFirst[1]}.${diffFirst[3]}`;
    }
  }
  const dot = body.indexOf('.');
  return {
    payeeText: dot === -1 ? body : body.slice(0, dot),
    workerInLogin: dot === -1 ? undefined : body.slice(dot + 1),
    difficultyText,
    solo,
  };
}

/** Validates a payout address (also used for addresses an alias resolves to). */
export function parseAddress(text: string): { address: string; decoded: DecodedAddress } {
  try {
    return { address: text, decoded: decodeAddress(text) };
  } catch (error) {
    if (error instanceof AddressError) {
      throw new StratumError('INVALID_LOGIN', { reason: error.code });
    }
    throw error;
  }
}

function parsePayee(text: string, decode: ((text: string) => DecodedAddress) | undefined): LoginPayee {
  if (text.startsWith('@')) {
    if (!ALIAS_PATTERN.test(text)) throw new StratumError('INVALID_LOGIN', { reason: 'BAD_ALIAS' });
    return { kind: 'alias', alias: text.slice(1) };
  }
  const decoded = decode === undefined ? parseAddress(text).decoded : decode(text);
  return { kind: 'address', address: text, decoded };
}

function pickWorker(inLogin: string | undefined, rigid: unknown, pass: unknown): string {
  const candidates: unknown[] = [inLogin, rigid];
  if (typeof pass === 'string' && !EMPTY_PASSWORDS.has(pass.trim())) {
    candidates.push(pass.split(':', 1)[0]);
  }
  for (const candidate of candidates) {
    if (typeof candidate !== 'string') continue;
    const worker = sanitiseWorkerName(candidate);
    if (worker.length > 0) return worker;
  }
  return DEFAULT_WORKER_NAME;
}

/**
 * Worker names end up in Redis keys, logs, the API, the dashboard and chat messages: keep letters,
 * combining marks and digits of any script (NFC, so a name typed decomposed is the same worker),
 * `.`, `_` and `-`; anything else becomes `_`: controls, format characters (bidi overrides,
 * zero-width), whitespace, symbols and emoji, and every character that means something to HTML,
 * markdown, a Redis key pattern or a `:`-separated member. At most 64 bytes of UTF-8.
 */
export function sanitiseWorkerName(text: string): string {
  const name = text
    .trim()
    .slice(0, MAX_WORKER_INPUT_UNITS)
    .normalize('NFC')
    .replace(NOT_WORKER_CHARACTER, '_');
  return clipUtf8(name, MAX_WORKER_BYTES);
}

/** The longest prefix of `text` within `maxBytes` of UTF-8, cut between code points. */
function clipUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    const codePoint = character.codePointAt(0)!;
    bytes += codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
    if (bytes > maxBytes) break;
    end += character.length;
  }
  return text.slice(0, end);
}
