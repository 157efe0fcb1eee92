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

/** Cases taken from a one-address container, replayed below on devnets set up like it. */
const OWN_SETUP = new Set([
  '71-estimateFusion',
  '72-sendFusionTransaction',
  '73-sendTransaction-young-chain-anonymity-0',
]);

describe('wallet contract: the captured walletd 1.9.3 requests against the devnet', () => {
  let devnet: Devnet;
  let substitute: (body: string) => string;

  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { addressCount: 2 } });
    // The captured wallet still had unlocked coins after its sends (42-52), when 68 asked for 50
    // decoys: walletd checks funds first, so the devnet's needs more than its premine too.
    devnet.control.mineBlocks(5);
    const [a, b] = devnet.wallet.addresses;
    // The captured container's addresses stand for the devnet wallet's own two.
    substitute = (body) => body.replaceAll(CAPTURED_A, a!).replaceAll(CAPTURED_B, b!);
  });
  afterAll(async () => {
    await devnet.stop();
  });

  const cases = capturedCases('walletd-rpc').filter(
    (c) => !STATE_SPECIFIC.has(c.name) && !OWN_SETUP.has(c.name) && c.name !== '03-createAddress',
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

const captured = (name: string) => capturedCases('walletd-rpc').find((c) => c.name === name)!;
const replay = async (devnet: Devnet, name: string) => {
  const reply = await send(`${devnet.walletUrl}/json_rpc`, 'POST', captured(name).body);
  return {
    expected: JSON.parse(captured(name).responseBody) as Record<string, unknown>,
    actual: JSON.parse(reply.text) as Record<string, unknown>,
  };
};

describe('wallet contract: fusion (71, 72) on a one-address wallet full of coinbase outputs', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startTestDevnet();
    // 70 more blocks to the wallet: about 70 unlocked coinbase outputs of each power of ten mined.
    devnet.control.mineBlocks(70);
  });
  afterAll(async () => {
    await devnet.stop();
  });

  test('71-estimateFusion (threshold 100 XFG) counts ready and total outputs', async () => {
    const { expected, actual } = await replay(devnet, '71-estimateFusion');
    expect(shapeDifferences(expected, actual)).toEqual([]);
    const result = actual['result'] as { fusionReadyCount: number; totalOutputCount: number };
    expect(result.fusionReadyCount).toBeGreaterThanOrEqual(12);
    expect(result.fusionReadyCount).toBeLessThan(result.totalOutputCount);
  });

  test('72-sendFusionTransaction sends a transaction that waits in the pool', async () => {
    const { expected, actual } = await replay(devnet, '72-sendFusionTransaction');
    expect(shapeDifferences(expected, actual)).toEqual([]);
    const hash = (actual['result'] as { transactionHash: string }).transactionHash;
    expect(devnet.chain.mempool().map((tx) => tx.hash)).toEqual([hash]);
  });
});

describe('wallet contract: 73 on a young chain whose daemon has no decoys to offer', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { requireDecoys: true } });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  test('73-sendTransaction-young-chain-anonymity-0 is refused exactly as captured', async () => {
    const { expected, actual } = await replay(devnet, '73-sendTransaction-young-chain-anonymity-0');
    expect(actual).toEqual(expected);
  });
});
