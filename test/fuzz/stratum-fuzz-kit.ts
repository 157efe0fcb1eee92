import { Duplex } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { STRATUM_ERRORS } from '../../src/pool/stratum-errors.js';
import { parseRequestLine } from '../../src/servers/stratum/protocol.js';

/**
 * Inputs and checks shared by the stratum fuzz suites: real XMRig 6.16.0 lines (copied from
 * shared/spec/stratum-xmrig-transcript.md §1 and §3, keepalived from §5), a seeded generator of
 * random and mutated lines, and the validity rule for everything the pool writes back.
 */
export const XMRIG_LOGIN_LINE =
  '{"id":1,"jsonrpc":"2.0","method":"login","params":{"login":"test","pass":"x","agent":"XMRig/6.16.0 (Linux x86_64) libuv/1.42.0 gcc/5.4.0","rigid":"test-rig","algo":["cn/upx2","cn/1","cn/2","cn/r","cn/fast","cn/half","cn/xao","cn/rto","cn/rwz","cn/zls","cn/double","cn/ccx","cn-lite/0","cn-lite/1","cn-heavy/0","cn-heavy/tube","cn-heavy/xhv","cn-pico","cn-pico/tlo","cn/0","rx/0","rx/wow","rx/arq","rx/graft","rx/sfx","rx/keva","argon2/chukwa","argon2/chukwav2","argon2/ninja","astrobwt","ghostrider"]}}';
export const XMRIG_SUBMIT_LINE =
  '{"id":2,"jsonrpc":"2.0","method":"submit","params":{"id":"probe-1","job_id":"job1","nonce":"db000000","result":"ed1135ed9ae1c2759e00f9b8db321eeb0707f3ff1769e6661a403904c0ed1400","algo":"cn/upx2"}}';
export const XMRIG_SUBMIT_NOEXT_LINE =
  '{"id":2,"jsonrpc":"2.0","method":"submit","params":{"id":"probe-1","job_id":"job1","nonce":"28060000","result":"47738d4412e246adbab19b7f8bcf954a56dc29b8770431780f14aadb50e52700"}}';
export const XMRIG_KEEPALIVED_LINE =
  '{"id":2,"jsonrpc":"2.0","method":"keepalived","params":{"id":"probe-1"}}';

export const XMRIG_LINES = [
  XMRIG_LOGIN_LINE,
  XMRIG_SUBMIT_LINE,
  XMRIG_SUBMIT_NOEXT_LINE,
  XMRIG_KEEPALIVED_LINE,
] as const;

/** xorshift32: reproducible from the seed printed by each suite. */
export class Rng {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let x = this.#state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#state = x >>> 0;
    return this.#state;
  }
  int(maxExclusive: number): number {
    return this.next() % maxExclusive;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() / 2 ** 32 < p;
  }
}

const JSON_PIECES = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ':',
  ',',
  'null',
  'true',
  'false',
  '-0',
  '1e309',
  '9007199254740993',
  '-1',
  '0.5',
  '"id"',
  '"method"',
  '"params"',
  '"login"',
  '"submit"',
  '"keepalived"',
  '"getjob"',
  '"job_id"',
  '"nonce"',
  '"result"',
  '"__proto__"',
  '"constructor"',
  '\\u0000',
  '\\ud800',
  '\u00ff',
  '\u{1f525}',
  ' ',
  '\t',
  '\r',
];

const ODD_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  '',
  'x'.repeat(300),
  'zz'.repeat(32),
  '00000000',
  'ffffffff',
  'f'.repeat(64),
  [],
  [1, 2],
  {},
  { id: 'x' },
  '\u0000',
  '__proto__',
];

function randomJsonValue(rng: Rng, depth: number): unknown {
  switch (depth > 3 ? rng.int(4) : rng.int(7)) {
    case 0:
      return rng.pick(ODD_VALUES);
    case 1:
      return rng.int(2 ** 31) - 2 ** 30;
    case 2:
      return String.fromCharCode(...Array.from({ length: rng.int(12) }, () => rng.int(0xffff)));
    case 3:
      return rng.chance(0.5);
    case 4:
      return Array.from({ length: rng.int(5) }, () => randomJsonValue(rng, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = rng.int(5); i > 0; i--) {
        object[rng.pick(['id', 'method', 'params', 'login', 'job_id', 'nonce', 'result', 'algo', 'pass'])] =
          randomJsonValue(rng, depth + 1);
      }
      return object;
    }
  }
}

/** A line made from nothing: random bytes, JSON-ish tokens, or a random JSON document. */
export function randomLine(rng: Rng): string {
  switch (rng.int(4)) {
    case 0:
      return String.fromCharCode(...Array.from({ length: 1 + rng.int(80) }, () => rng.int(256)));
    case 1:
      return Array.from({ length: 1 + rng.int(30) }, () => rng.pick(JSON_PIECES)).join('');
    case 2:
      return JSON.stringify(randomJsonValue(rng, 0)) ?? 'null';
    default: {
      const request: Record<string, unknown> = {
        id: rng.chance(0.7) ? rng.int(1000) : randomJsonValue(rng, 2),
        jsonrpc: '2.0',
        method: rng.pick(['login', 'submit', 'keepalived', 'getjob', 'mining.subscribe', '', 'LOGIN']),
      };
      if (rng.chance(0.8)) request['params'] = randomJsonValue(rng, 0);
      return JSON.stringify(request);
    }
  }
}

/** Replaces one JSON value of a real line with an odd one (a typed mutation that stays JSON). */
function mutateValue(line: string, rng: Rng): string {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return line;
  const params = parsed['params'];
  const target =
    rng.chance(0.6) && params !== null && typeof params === 'object' && !Array.isArray(params)
      ? (params as Record<string, unknown>)
      : parsed;
  const keys = Object.keys(target);
  if (keys.length === 0 || rng.chance(0.15))
    target[rng.pick(['extra', 'sig', 'id', 'algo'])] = randomJsonValue(rng, 1);
  else if (rng.chance(0.2)) delete target[rng.pick(keys)];
  else target[rng.pick(keys)] = rng.chance(0.5) ? rng.pick(ODD_VALUES) : randomJsonValue(rng, 1);
  return JSON.stringify(parsed);
}

/** A real XMRig line with byte-level or value-level damage. */
export function mutateLine(line: string, rng: Rng): string {
  let text = line;
  const rounds = 1 + rng.int(3);
  for (let round = 0; round < rounds; round++) {
    const at = rng.int(text.length + 1);
    switch (rng.int(8)) {
      case 0:
        text = text.slice(0, at) + String.fromCharCode(rng.int(256)) + text.slice(at + 1);
        break;
      case 1:
        text = text.slice(0, at) + text.slice(at + 1 + rng.int(16));
        break;
      case 2:
        text = text.slice(0, at) + rng.pick(JSON_PIECES) + text.slice(at);
        break;
      case 3:
        text = text.slice(0, at);
        break;
      case 4: {
        const length = rng.int(40);
        text =
          text.slice(0, at) + text.slice(at, at + length).repeat(1 + rng.int(4)) + text.slice(at + length);
        break;
      }
      default:
        text = mutateValue(text, rng);
    }
  }
  return text;
}

/** What the splitter will hand to the parser for this line: dropped when blank, \r trimmed. */
export function asReceived(line: string): string | undefined {
  const text = Buffer.from(line, 'utf8').toString('utf8').replace(/\r$/, '');
  return text.trim().length > 0 ? text : undefined;
}

const KNOWN_MESSAGES = new Set<string>(Object.values(STRATUM_ERRORS).map((e) => e.message));

export type ReplyCheck =
  | { readonly kind: 'reply'; readonly id: unknown; readonly ok: boolean; readonly result: unknown }
  | { readonly kind: 'job' }
  | { readonly kind: 'invalid'; readonly why: string };

/**
 * One line the pool wrote: a JSON-RPC 2.0 reply (error null + result object, or result null +
 * error {code -1, known message}) or a `job` notification. Anything else is `invalid`.
 */
export function checkPoolLine(raw: string): ReplyCheck {
  if (!raw.endsWith('\n')) return { kind: 'invalid', why: 'no newline' };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { kind: 'invalid', why: 'not JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { kind: 'invalid', why: 'not an object' };
  const message = value as Record<string, unknown>;
  if (message['jsonrpc'] !== '2.0') return { kind: 'invalid', why: 'jsonrpc' };
  if ('method' in message) {
    const params = message['params'] as Record<string, unknown> | undefined;
    return message['method'] === 'job' &&
      typeof params?.['job_id'] === 'string' &&
      typeof params['blob'] === 'string'
      ? { kind: 'job' }
      : { kind: 'invalid', why: 'notification' };
  }
  const id = message['id'];
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) {
    return { kind: 'invalid', why: 'id' };
  }
  const error = message['error'] as Record<string, unknown> | null | undefined;
  const result = message['result'];
  if (error === null && result !== null && typeof result === 'object')
    return { kind: 'reply', id, ok: true, result };
  if (
    result === null &&
    error !== null &&
    typeof error === 'object' &&
    error['code'] === -1 &&
    typeof error['message'] === 'string' &&
    KNOWN_MESSAGES.has(error['message'])
  ) {
    return { kind: 'reply', id, ok: false, result };
  }
  return { kind: 'invalid', why: `reply shape ${raw.slice(0, 120)}` };
}

/** The ids the pool must echo, in order, for the lines of one connection (up to a violation). */
export function expectedReplyIds(lines: readonly string[]): { ids: unknown[]; violation: boolean } {
  const ids: unknown[] = [];
  for (const line of lines) {
    const received = asReceived(line);
    if (received === undefined) continue;
    const parsed = parseRequestLine(received);
    if (parsed.violation) return { ids, violation: true };
    ids.push(parsed.request.id);
  }
  return { ids, violation: false };
}

/** heapUsed after a full GC, so samples compare live memory, not garbage timing. */
export function liveHeapBytes(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  gc?.();
  return process.memoryUsage().heapUsed;
}

/**
 * An in-memory stand-in for a net.Socket: what the connection writes is collected, `end()` is
 * answered by a close (as a peer would), and input respects pause()/resume() like TCP.
 */
export class MemorySocket extends Duplex {
  readonly written: string[] = [];
  readonly remoteAddress = '10.9.9.9';

  constructor() {
    super({ allowHalfOpen: false });
    this.on('finish', () => this.destroy());
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  override _read(): void {}

  override _write(
    chunk: Buffer | string,
    _encoding: BufferEncoding,
    callback: (error?: Error | null) => void,
  ): void {
    this.written.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    callback();
  }

  /** Output split into lines (each with its "\n"). */
  lines(): string[] {
    return this.written
      .join('')
      .split(/(?<=\n)/)
      .filter((line) => line.length > 0);
  }
}
