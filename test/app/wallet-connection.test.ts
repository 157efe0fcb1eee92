import { describe, expect, it } from 'vitest';
import { WALLET_RPC_PASSWORD_ENV, walletClientOf } from '../../src/app/wallet-connection.js';
import { parseConfig } from '../../src/config/load-config.js';
import { RedisBalances } from '../../src/store/payments/balances-store.js';
import { expectOnlyPinnedClientsReach, startTlsProxy, testCertificate } from '../helpers/tls-servers.js';
import { usePayoutDevnet } from '../leader/payouts/payout-devnet-env.js';
import { payoutRunnerFor } from '../leader/payouts/payout-runner-for.js';
import {
  devnetReceived,
  expectPaidExactlyOnce,
  fundThreeMiners,
  unlessWalletHeld,
} from '../leader/payouts/payout-test-kit.js';
import { silentLogger, uniquePrefix } from '../store/store-fixtures.js';

const COIN = 10_000_000n;

/** The pool against a walletd started with `--rpc-user pool-payer --rpc-password walletd-secret`. */
describe('wallet client with walletd credentials', () => {
  const env = usePayoutDevnet({ wallet: { rpcUser: 'pool-payer', rpcPassword: 'walletd-secret' } });

  /** The wallet section of a config naming this devnet's walletd, with `rpcUser`. */
  function walletConfig(rpcUser?: string) {
    const url = new URL(env.devnet.walletUrl);
    return parseConfig({
      wallet: {
        host: url.hostname,
        port: Number(url.port),
        timeoutMs: 10_000,
        ...(rpcUser ? { rpcUser } : {}),
      },
    }).wallet;
  }

  const PASSWORD_SET = { [WALLET_RPC_PASSWORD_ENV]: 'walletd-secret' };

  it('sends wallet.rpcUser and the password from the environment; without them walletd refuses, saying what to set', async () => {
    const client = walletClientOf(walletConfig('pool-payer'), PASSWORD_SET, { retries: 0 });
    try {
      expect((await client.getStatus()).blockCount).toBeGreaterThan(0);
    } finally {
      client.close();
    }
    for (const [rpcUser, env] of [
      [undefined, {}],
      ['pool-payer', {}],
      ['someone-else', PASSWORD_SET],
    ] as const) {
      const refused = walletClientOf(walletConfig(rpcUser), env, { retries: 2 });
      try {
        const error = await refused.getStatus().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toMatchObject({ code: 'RPC_UNAUTHORIZED', isTransient: false });
        expect((error as Error).message).toContain('wallet.rpcUser');
        expect((error as Error).message).toContain(WALLET_RPC_PASSWORD_ENV);
      } finally {
        refused.close();
      }
    }
  });

  it('asks a walletd behind a TLS proxy with its certificate pinned; another certificate gets no request', async () => {
    const [served, other] = await Promise.all([
      testCertificate({ namesLoopback: false }),
      testCertificate({ namesLoopback: false }),
    ]);
    const proxy = await startTlsProxy(served, env.devnet.walletUrl);
    const behindProxy = (fingerprint: string) =>
      parseConfig({
        wallet: { host: '127.0.0.1', port: proxy.port, rpcUser: 'pool-payer', tls: { fingerprint } },
      }).wallet;
    const pinned = walletClientOf(behindProxy(served.fingerprint), PASSWORD_SET, { retries: 0 });
    const impostor = walletClientOf(behindProxy(other.fingerprint), PASSWORD_SET, { retries: 0 });
    try {
      // The impostor never gets the credentials.
      await expectOnlyPinnedClientsReach(
        proxy,
        async () => expect((await pinned.getStatus()).blockCount).toBeGreaterThan(0),
        () => impostor.getStatus(),
      );
    } finally {
      pinned.close();
      impostor.close();
      await proxy.close();
    }
  }, 60_000);

  it('pays through that walletd with them; with wrong ones a payout pass pays nothing and debits nothing', async () => {
    const keyPrefix = uniquePrefix('wallet-credentials');
    const { credits } = await fundThreeMiners(env.redis, keyPrefix, 'wallet-credentials');
    const wrong = walletClientOf(
      walletConfig('pool-payer'),
      { [WALLET_RPC_PASSWORD_ENV]: 'nope' },
      { retries: 0 },
    );
    const right = walletClientOf(walletConfig('pool-payer'), PASSWORD_SET, { retries: 0 });
    try {
      const refused = await payoutRunnerFor(
        env.redis,
        keyPrefix,
        { wallet: wrong, logger: silentLogger },
        { minPayoutAtomic: COIN },
      ).runOnce();
      // Held before any batch, the reason saying what to set.
      expect(refused).toMatchObject({ skipped: 'wallet-unhealthy', batches: [] });
      expect(refused.detail).toContain('FUEGO_POOL_WALLET_RPC_PASSWORD');
      const balances = new RedisBalances({ keyPrefix }, { redis: env.redis });
      for (const [address, credited] of credits) {
        expect(await balances.getBalance(address)).toMatchObject({
          balance: credited,
          inPayout: 0n,
          paid: 0n,
        });
        expect(devnetReceived(env.devnet, address)).toBe(0n);
      }
      const paid = await unlessWalletHeld(() =>
        payoutRunnerFor(
          env.redis,
          keyPrefix,
          { wallet: right, logger: silentLogger },
          { minPayoutAtomic: COIN },
        ).runOnce(),
      );
      expect(paid.batches.map((batch) => batch.state)).toEqual(['sent']);
      env.devnet.control.mineBlocks(1);
      await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, credits);
    } finally {
      wrong.close();
      right.close();
    }
  });
});
