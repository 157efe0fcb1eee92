import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBlockUnlocker } from '../../../src/app/money-services.js';
import { configSchema } from '../../../src/config/schema.js';
import type { Devnet } from '../../../src/devnet/devnet.js';
import { TrustedChainUnlocker } from '../../../src/leader/unlocker/trusted-chain-unlocker.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { startTestDevnet } from '../../devnet/devnet-test-helpers.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { freePort } from '../../helpers/redis-server.js';
import { startTlsProxy, testCertificate } from '../../helpers/tls-servers.js';
import {
  ADDRESSES,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../../store/store-fixtures.js';
import { type DevnetUnlockerEnv, startDevnetUnlockerEnv } from './unlocker-kit.js';

const [A] = ADDRESSES;
/** Mines the witness devnets' own chains: their blocks differ from the pool daemon's. */
const WITNESS_MINER =
  'fireLatcLpwh9ut8LYbz1uTUfe9mhdnqF3n9TM79QdSx83VX1FDsP5z3TcfJRiFd4NjUw5QWBC6FaFrwY3LAGiHr5iQPKvTHmW';

const portOf = (url: string): number => Number(new URL(url).port);

const CONFIRM_DEPTH = 5;

/**
 * The unlocker credits a block only on a chain it can trust: a fuegod without peers (isolated) may
 * be extending a private fork only the pool mines, whose blocks vanish when it rejoins the network.
 */
describe("the leader's unlocker on a daemon chain it cannot trust (isolated, syncing, or unlike its witnesses')", () => {
  let env: DevnetUnlockerEnv;
  beforeAll(async () => {
    env = await startDevnetUnlockerEnv();
  });
  afterAll(() => env?.stop());

  // The devnet is shared: each test starts from an isolated, synced daemon.
  afterEach(() => {
    env.devnet.control.setDaemonPeers(0);
    env.devnet.control.setDaemonKnownBlocksAhead(0);
  });

  /** The leader's unlocker as a config of `network` builds it, on its own key prefix. */
  function setup(
    label: string,
    network: 'mainnet' | 'testnet' | 'devnet',
    unlockNeedsDaemonPeers?: boolean,
    payments: Record<string, unknown> = {},
    clock?: () => number,
  ) {
    const keyPrefix = uniquePrefix(label);
    const needsPeers = unlockNeedsDaemonPeers === undefined ? {} : { unlockNeedsDaemonPeers };
    const config = configSchema.parse({
      network,
      redis: { keyPrefix },
      payments: { confirmDepth: CONFIRM_DEPTH, ...needsPeers, ...payments },
    });
    return {
      ledger: new RedisShareLedger(
        { ...DEFAULT_STORE_OPTIONS, keyPrefix },
        { redis: env.redis, logger: silentLogger },
      ),
      unlocker: createBlockUnlocker(config, {
        redis: env.redis,
        daemon: env.daemon,
        logger: silentLogger,
        ...(clock ? { clock } : {}),
      }),
      balances: new RedisBalances({ keyPrefix }, { redis: env.redis }),
      keyPrefix,
    };
  }

  /** Mines a block as the pool's candidate (A's share solved it) and buries it confirmDepth deep. */
  async function findBuriedBlock(s: ReturnType<typeof setup>): Promise<string> {
    const share = makeShare({ address: A, difficulty: 1000 });
    await s.ledger.recordShare(share);
    const [block] = env.devnet.control.mineBlocks(1);
    await s.ledger.writeBlockCandidate(
      makeCandidate({ hash: block!.id, height: block!.height, networkDifficulty: 1000n, share }),
    );
    env.devnet.control.mineBlocks(CONFIRM_DEPTH);
    return block!.id;
  }

  /** A run that decides nothing, for `reason`: the block stays pending, nothing is credited. */
  async function expectWaits(s: ReturnType<typeof setup>, hash: string, reason: string): Promise<void> {
    expect(await s.unlocker.runOnce()).toEqual({ skipped: reason, decisions: [] });
    expect((await s.ledger.getBlockCandidate(hash))?.status).toBe('pending');
    expect((await s.balances.getTotals()).rewards).toBe(0n);
  }

  /** A run that decides the block: `outcome`. */
  async function expectDecided(s: ReturnType<typeof setup>, hash: string, outcome: string): Promise<void> {
    const run = await s.unlocker.runOnce();
    expect(run.skipped).toBeNull();
    expect(run.decisions).toEqual([expect.objectContaining({ hash, outcome })]);
  }

  it('mainnet: a block confirmDepth deep on a daemon without peers is not credited', async () => {
    const s = setup('isolated-mainnet', 'mainnet');
    await expectWaits(s, await findBuriedBlock(s), 'daemon-isolated');
  });

  it('mainnet: not credited while isolated (its window fixed all the same), credited once peers are back', async () => {
    const s = setup('isolated-back', 'mainnet');
    const hash = await findBuriedBlock(s);
    await expectWaits(s, hash, 'daemon-isolated');
    expect((await s.ledger.getBlockCandidate(hash))?.window).not.toBeNull();
    env.devnet.control.setDaemonPeers(0, 3);
    await expectDecided(s, hash, 'confirmed');
    expect((await s.balances.getBalance(A)).balance).toBeGreaterThan(0n);
  });

  it('testnet: not credited while the daemon syncs (peers know a longer chain), credited once it caught up', async () => {
    const s = setup('syncing', 'testnet');
    env.devnet.control.setDaemonPeers(8);
    env.devnet.control.setDaemonKnownBlocksAhead(500);
    const hash = await findBuriedBlock(s);
    await expectWaits(s, hash, 'daemon-syncing');
    env.devnet.control.setDaemonKnownBlocksAhead(1);
    await expectDecided(s, hash, 'confirmed');
  });

  it('mainnet: a block another one replaced is not orphaned while isolated either', async () => {
    const s = setup('isolated-orphan', 'mainnet');
    const hash = await findBuriedBlock(s);
    env.devnet.control.reorg(CONFIRM_DEPTH + 1, { replacementBlocks: CONFIRM_DEPTH + 2 });
    await expectWaits(s, hash, 'daemon-isolated');
    env.devnet.control.setDaemonPeers(1);
    await expectDecided(s, hash, 'orphaned');
  });

  it('mainnet: a credited block a deep reorg replaced is not flagged while isolated, flagged once peers are back', async () => {
    const s = setup('isolated-reorg-watch', 'mainnet');
    env.devnet.control.setDaemonPeers(1);
    const hash = await findBuriedBlock(s);
    await expectDecided(s, hash, 'confirmed');
    env.devnet.control.reorg(CONFIRM_DEPTH + 1);
    env.devnet.control.setDaemonPeers(0);
    expect(await s.unlocker.runOnce()).toEqual({ skipped: 'daemon-isolated', decisions: [] });
    expect(await s.ledger.getBlockCandidate(hash)).toMatchObject({ orphanedAfterCredit: false });
    env.devnet.control.setDaemonPeers(1);
    await expectDecided(s, hash, 'orphaned-after-credit');
  });

  it('mainnet: the reorg audit flags a credited block a reorg replaced below the watch window, not while isolated', async () => {
    const clock = { nowMs: Date.now() };
    const payments = { reorgWatchBlocks: 1, reorgAuditBlocks: 100, reorgAuditIntervalSec: 3_600 };
    const s = setup('isolated-reorg-audit', 'mainnet', undefined, payments, () => clock.nowMs);
    env.devnet.control.setDaemonPeers(1);
    const hash = await findBuriedBlock(s);
    await expectDecided(s, hash, 'confirmed');
    // 7 deep (past the watch: confirmDepth + 1 = 6), then a reorg of 8 blocks from its height: 8 deep.
    env.devnet.control.mineBlocks(2);
    const { orphaned } = env.devnet.control.reorg(CONFIRM_DEPTH + 3);
    expect(orphaned[0]?.id).toBe(hash);
    clock.nowMs += 3_600_000;
    env.devnet.control.setDaemonPeers(0);
    expect(await s.unlocker.runOnce()).toEqual({ skipped: 'daemon-isolated', decisions: [] });
    expect(await s.ledger.getBlockCandidate(hash)).toMatchObject({ orphanedAfterCredit: false });
    env.devnet.control.setDaemonPeers(1);
    await expectDecided(s, hash, 'orphaned-after-credit');
    expect(await s.ledger.getBlockCandidate(hash)).toMatchObject({ orphanedAfterCredit: true });
    expect((await s.unlocker.runOnce()).decisions).toEqual([]);
  });

  it('devnet (the key off by default): credited on a daemon without peers, as before', async () => {
    const s = setup('devnet-default', 'devnet');
    await expectDecided(s, await findBuriedBlock(s), 'confirmed');
  });

  /** `payments.witnessDaemons` naming these devnets' daemons (or a port nothing listens on). */
  function witnessesAt(...ports: number[]) {
    return { witnessDaemons: ports.map((port) => ({ host: '127.0.0.1', port, timeoutMs: 2_000 })) };
  }

  /** A devnet with its own chain (mined for another address), `blocks` above the genesis. */
  async function otherChain(blocks: number): Promise<Devnet> {
    const other = await startTestDevnet();
    other.control.mineBlocks(blocks, WITNESS_MINER);
    return other;
  }

  it('mainnet, synced with peers, but a witness holds another chain (an eclipse): not credited, credited once the witness agrees', async () => {
    env.devnet.control.setDaemonPeers(8);
    const witness = await otherChain((await env.daemon.getBlockCount()) + 10);
    try {
      const eclipsed = setup('eclipse', 'mainnet', undefined, witnessesAt(portOf(witness.daemonUrl)));
      const hash = await findBuriedBlock(eclipsed);
      await expectWaits(eclipsed, hash, 'witness-disagrees');
      // The same blocks, judged with a witness on the daemon's own chain.
      const vouched = createBlockUnlocker(
        configSchema.parse({
          network: 'mainnet',
          redis: { keyPrefix: eclipsed.keyPrefix },
          payments: { confirmDepth: CONFIRM_DEPTH, ...witnessesAt(portOf(env.devnet.daemonUrl)) },
        }),
        { redis: env.redis, daemon: env.daemon, logger: silentLogger },
      );
      const run = await vouched.runOnce();
      expect(run.decisions).toEqual([expect.objectContaining({ hash, outcome: 'confirmed' })]);
    } finally {
      await witness.stop();
    }
  });

  it('a witness whose chain is shorter, or that does not answer, holds the run too (devnet network)', async () => {
    const shortWitness = await otherChain(1);
    try {
      const lagging = setup(
        'witness-behind',
        'devnet',
        undefined,
        witnessesAt(portOf(shortWitness.daemonUrl)),
      );
      await expectWaits(lagging, await findBuriedBlock(lagging), 'witness-behind');
    } finally {
      await shortWitness.stop();
    }
    const silent = setup('witness-down', 'devnet', undefined, witnessesAt(await freePort()));
    await expectWaits(silent, await findBuriedBlock(silent), 'witness-unreachable');
  });

  it('a witness behind a TLS proxy vouches over HTTPS with its certificate pinned; another certificate holds the run', async () => {
    const [served, other] = await Promise.all([
      testCertificate({ namesLoopback: false }),
      testCertificate({ namesLoopback: false }),
    ]);
    // The pool's own chain, as a remote fuegod behind a TLS proxy on its host would serve it.
    const proxy = await startTlsProxy(served, env.devnet.daemonUrl);
    try {
      const witness = (fingerprint: string) => ({
        witnessDaemons: [{ host: '127.0.0.1', port: proxy.port, timeoutMs: 2_000, tls: { fingerprint } }],
      });
      const impostor = setup('witness-tls-impostor', 'devnet', undefined, witness(other.fingerprint));
      await expectWaits(impostor, await findBuriedBlock(impostor), 'witness-unreachable');
      const pinned = setup('witness-tls', 'devnet', undefined, witness(served.fingerprint));
      await expectDecided(pinned, await findBuriedBlock(pinned), 'confirmed');
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('the key set explicitly wins over the network default', async () => {
    const mainnetOff = setup('mainnet-off', 'mainnet', false);
    await expectDecided(mainnetOff, await findBuriedBlock(mainnetOff), 'confirmed');
    const devnetOn = setup('devnet-on', 'devnet', true);
    await expectWaits(devnetOn, await findBuriedBlock(devnetOn), 'daemon-isolated');
  });
});

describe('TrustedChainUnlocker.close', () => {
  it('closes every check that holds connections (the witnesses), once the leader stops', () => {
    const closed: string[] = [];
    const check = (name: string, closes: boolean) => ({
      distrust: async () => null,
      ...(closes ? { close: () => closed.push(name) } : {}),
    });
    const unlocker = new TrustedChainUnlocker({
      unlocker: {
        windows: { fixPending: async () => {} } as never,
        runOnce: async () => ({ decisions: [] }) as never,
      },
      checks: [check('daemon-trust', false), check('witnesses', true)],
    });
    unlocker.close();
    expect(closed).toEqual(['witnesses']);
  });
});
