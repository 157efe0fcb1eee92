import { readdirSync } from 'node:fs';
import { Devnet } from '../../src/devnet/devnet.js';
import type { DevnetConfigInput } from '../../src/devnet/devnet-config.js';
import { loadHasher } from '../../src/pow/load-hasher.js';
import type { PowHasher } from '../../src/pow/types.js';
import { fixturePath, readFixture } from '../helpers/fixtures.js';

let cachedHasher: PowHasher | undefined;

/** The fastest cn/upx2 implementation available (self-tested once per test file). */
export function testHasher(): PowHasher {
  cachedHasher ??= loadHasher('auto', { warn: () => undefined });
  return cachedHasher;
}

/** A devnet on free ports with the given config overrides. */
export async function startTestDevnet(config: DevnetConfigInput = {}): Promise<Devnet> {
  return Devnet.start(
    {
      ...config,
      daemon: { port: 0, ...config.daemon },
      wallet: { port: 0, ...config.wallet },
    },
    { hasher: testHasher() },
  );
}

export interface RawReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export async function send(url: string, method: string, body?: string): Promise<RawReply> {
  const init: RequestInit = { method, headers: { 'Content-Type': 'application/json' } };
  if (body !== undefined && method !== 'GET') init.body = body;
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export async function jsonRpc(
  url: string,
  method: string,
  params: unknown,
  id: unknown = '1',
): Promise<Record<string, unknown>> {
  const reply = await send(`${url}/json_rpc`, 'POST', JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  return JSON.parse(reply.text) as Record<string, unknown>;
}

/** The `result.transaction` of a captured walletd getTransaction reply (walletd-rpc/NAME). */
export function capturedWalletTransaction<T>(name: string): T {
  const body = JSON.parse(readFixture(`walletd-rpc/${name}.response.body`)) as { result: { transaction: T } };
  return body.result.transaction;
}

/** The devnet wallet's getTransaction record of `hash`. */
export async function walletTransaction<T>(devnet: Devnet, hash: string): Promise<T> {
  const reply = await jsonRpc(devnet.walletUrl, 'getTransaction', { transactionHash: hash });
  return (reply['result'] as { transaction: T }).transaction;
}

/** A plain send of 0.001 XFG from the devnet wallet's first address to its second; its hash. */
export async function sendToSecondAddress(devnet: Devnet): Promise<string> {
  const sent = await jsonRpc(devnet.walletUrl, 'sendTransaction', {
    transfers: [{ address: devnet.wallet.addresses[1]!, amount: 10_000_000 }],
    changeAddress: devnet.walletAddress,
    fee: 80000,
    anonymity: 2,
  });
  return (sent['result'] as { transactionHash: string }).transactionHash;
}

/** One captured case: NAME.request.txt (method, URL, headers, blank line, body) and its response. */
export interface CapturedCase {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body: string;
  readonly status: number;
  readonly responseBody: string;
}

export function capturedCases(folder: 'fuegod-rpc' | 'walletd-rpc'): CapturedCase[] {
  return readdirSync(fixturePath(folder))
    .filter((file) => file.endsWith('.request.txt'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.request.txt'.length);
      const request = readFixture(`${folder}/${file}`);
      const [requestLine = '', ...rest] = request.split('\n');
      const [method = 'GET', url = '/'] = requestLine.split(' ');
      const blank = rest.indexOf('');
      const body =
        blank >= 0
          ? rest
              .slice(blank + 1)
              .join('\n')
              .replace(/\n$/, '')
          : '';
      const http = readFixture(`${folder}/${name}.response.http`);
      const status = Number(http.split(' ')[1]);
      return {
        name,
        method,
        path: new URL(url).pathname,
        body,
        status,
        responseBody: readFixture(`${folder}/${name}.response.body`),
      };
    });
}

/** JSON type of a value, as the contract compares it. */
function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * Differences in shape between a captured reply and the devnet's: key sets, JSON types, and array
 * element shapes (when both arrays have elements). Error messages are compared with digits masked.
 */
export function shapeDifferences(expected: unknown, actual: unknown, path = '$'): string[] {
  const te = typeOf(expected);
  const ta = typeOf(actual);
  if (te !== ta) {
    // A captured float (e.g. "penalty":0.0 parsed as 0) may be an integer on either side.
    if (!(['integer', 'number'].includes(te) && ['integer', 'number'].includes(ta)))
      return [`${path}: ${te} vs ${ta}`];
  }
  if (te === 'array') {
    const e = expected as unknown[];
    const a = actual as unknown[];
    if (e.length > 0 && a.length > 0) return shapeDifferences(e[0], a[0], `${path}[0]`);
    return [];
  }
  if (te === 'object') {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const diffs: string[] = [];
    for (const key of Object.keys(e)) {
      if (!(key in a)) diffs.push(`${path}.${key}: missing`);
      else diffs.push(...shapeDifferences(e[key], a[key], `${path}.${key}`));
    }
    for (const key of Object.keys(a)) if (!(key in e)) diffs.push(`${path}.${key}: unexpected`);
    if (path.endsWith('.error') && typeof e['message'] === 'string' && typeof a['message'] === 'string') {
      const mask = (s: string) => s.replace(/\d+/g, 'N');
      if (mask(e['message']) !== mask(a['message']))
        diffs.push(`${path}.message: "${e['message']}" vs "${a['message']}"`);
      if (e['code'] !== a['code']) diffs.push(`${path}.code: ${String(e['code'])} vs ${String(a['code'])}`);
    }
    return diffs;
  }
  return [];
}
