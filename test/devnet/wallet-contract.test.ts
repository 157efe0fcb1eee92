import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { capturedCases, send, shapeDifferences, startTestDevnet } from './devnet-test-helpers.js';

/** The captured container's two addresses (A first, B created by case 03). */
const CAPTURED_A =
  'fire9iU5y8WC4oNx4DwwgW53acCbeUzKzFuBdnEoS1RfLb354KEXYxoeeXFikBv7AyRr78d8LW5fF2pzUMU57tsu6EXbo5kkUX';
const CAPTURED_B =
  'fire34HMrM3CcV3Uuda8R72VKuZTqXouZZPQnVE122U4KPAmokoTyQTeeXFikBv7AyRr78d8LW5fF2pzUMU57tsu6EXbnLL6nr';

/**
 * Cases that depend on the captured wallet's history: insufficient funds while the devnet wallet is
 * funded, and lookups of the captured transactions' hashes.
 */
const STATE_SPECIFIC = new Set([
  '30-sendTransaction-insufficient-funds-with-change',
  '31-sendTransaction-fee-below-min-with-change-no-unlocked',
  '32-sendTransaction-source-address',
  '45-getTransaction-sent-with-fee1',
  '52-sendDelayedTransaction-fee1',
  '53-getTransaction-delayed-fee1',
  '55-getTransaction-fee1-after-mined',
]);

describe('wallet contract: the captured walletd 1.9.3 requests against the devnet', () => {
  let devnet: Devnet;
  let substitute: (body: string) => string;

  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { addressCount: 2 } });
    const [a, b] = devnet.wallet.addresses;
    // The captured container's addresses stand for the devnet wallet's own two.
    substitute = (body) => body.replaceAll(CAPTURED_A, a!).replaceAll(CAPTURED_B, b!);
  });
  afterAll(async () => {
    await devnet.stop();
  });

  const cases = capturedCases('walletd-rpc').filter(
    (c) => !STATE_SPECIFIC.has(c.name) && c.name !== '03-createAddress',
  );
  test.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, captured) => {
    const reply = await send(
      `${devnet.walletUrl}${captured.path}`,
      captured.method,
      substitute(captured.body),
    );
    expect(reply.status).toBe(captured.status);
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    if (captured.status === 404) {
      expect(reply.text).toBe(captured.responseBody);
      return;
    }
    const expected = JSON.parse(captured.responseBody) as unknown;
    const actual = JSON.parse(reply.text) as unknown;
    expect(shapeDifferences(expected, actual)).toEqual([]);
  });

  test('03-createAddress answers a new real-format address', async () => {
    const captured = capturedCases('walletd-rpc').find((c) => c.name === '03-createAddress')!;
    const reply = await send(`${devnet.walletUrl}/json_rpc`, 'POST', captured.body);
    const body = JSON.parse(reply.text) as { result: { address: string } };
    expect(shapeDifferences(JSON.parse(captured.responseBody), body)).toEqual([]);
    expect(body.result.address).toMatch(/^fire[1-9A-HJ-NP-Za-km-z]{94}$/);
  });
});
