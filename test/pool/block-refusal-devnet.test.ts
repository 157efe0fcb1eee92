import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcingBlocks } from '../../src/app/block-announcing-ledger.js';
import { RedisEventRelay } from '../../src/cluster/redis-event-relay.js';
import { notificationConfigSchema } from '../../src/config/notifications-schema.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import { parseBlockTemplate } from '../../src/fuego/block-template.js';
import { blockTargetHex, checkHash } from '../../src/fuego/difficulty.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { LeaderLoop } from '../../src/leader/leader-loop.js';
import { notificationEventsOf } from '../../src/leader/notifications/notification-events.js';
import { createWebhookNotifier } from '../../src/leader/notifications/webhook-notifier.js';
import { createLogger } from '../../src/log/logger.js';
import type { StoredBlockCandidate } from '../../src/model/blocks/stored-block.js';
import { createPoolEventBus, type PoolEventBus } from '../../src/pool/events.js';
import { PoolBackend } from '../../src/pool/pool-backend.js';
import { pplnsSplit } from '../../src/pool/schemes/pplns.js';
import type { StratumJob } from '../../src/pool/stratum-backend.js';
import { DaemonClient } from '../../src/rpc/daemon-client.js';
import { createPoolMetrics } from '../../src/servers/api/api-metrics.js';
import { RedisBalances } from '../../src/store/payments/balances-store.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { RedisShareLedger } from '../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../src/store/shares/share-keys.js';
import { startTestDevnet, testHasher } from '../devnet/devnet-test-helpers.js';
import { runCliForTest } from '../helpers/cli.js';
import {
  DEFAULT_BAN_POLICY_OPTIONS,
  DEFAULT_POOL_BACKEND_OPTIONS,
  DEFAULT_STORE_OPTIONS,
} from '../helpers/config-defaults.js';
import { startReplayServer } from '../helpers/fixture-http-server.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';
import { expectLedgerConsistent } from '../leader/payouts/money-invariants.js';
import { FEE, unlockerOn } from '../leader/unlocker/unlocker-kit.js';
import { silentLogger, uniquePrefix } from '../store/store-fixtures.js';
import {
  ADDRESS,
  ADDRESS_2,
  connection,
  FakeBanRegistry,
  FakeSink,
  FakeTemplateSource,
} from './pool-fakes.js';

/** Low enough to find a block in a few dozen hashes, high enough that "meets the target" means something. */
const NETWORK_DIFFICULTY = 40;
/** The pool's reserve size (config default): node id + counter of the extra nonce. */
const RESERVE_SIZE = 8;

/**
 * The pool core, the Redis ledger and the devnet daemon together, when submitblock refuses a block
 * whose proof of work the pool verified: the miner is answered, the block is recorded as rejected
 * with its blob, the reason is found on the chain, counted in /metrics and logged once at error
 * level, and `fuego-pool block inspect` shows the kept blob meets its target. A refused block that
 * is on the chain after all is recorded as found and credited by the unlocker.
 */
describe('a block the daemon refuses, against the devnet', () => {
  let server: TestRedis;
  let redis: Redis;
  let devnet: Devnet;
  let daemon: DaemonClient;
  let configDir: string;

  beforeAll(async () => {
    [server, devnet] = await Promise.all([
      startTestRedis(),
      startTestDevnet({ daemon: { difficulty: NETWORK_DIFFICULTY } }),
    ]);
    redis = await createRedisClient({ url: server.url }, silentLogger);
    const url = new URL(devnet.daemonUrl);
    daemon = new DaemonClient({ host: url.hostname, port: Number(url.port), timeoutMs: 2_000, retries: 0 });
    configDir = mkdtempSync(join(tmpdir(), 'fuego-refusal-'));
  });

  afterAll(async () => {
    daemon?.close();
    redis?.disconnect();
    if (configDir) rmSync(configDir, { recursive: true, force: true });
    await Promise.all([server?.stop(), devnet?.stop()]);
  });

  /**
   * A pool on the devnet's current template, with one miner logged in at difficulty 1. With
   * `events`, its ledger announces blocks on that bus, as the stratum role wires it.
   */
  async function startPool(label: string, events?: PoolEventBus) {
    const keyPrefix = uniquePrefix(label);
    const logLines: Record<string, unknown>[] = [];
    const logger = createLogger(
      { level: 'info' },
      { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const ledger = new RedisShareLedger({ ...DEFAULT_STORE_OPTIONS, keyPrefix }, { redis, logger });
    const poolLedger = events === undefined ? ledger : announcingBlocks(ledger, events);
    const response = await daemon.getBlockTemplate({
      reserveSize: RESERVE_SIZE,
      walletAddress: devnet.walletAddress,
    });
    const template = parseBlockTemplate({
      blob: hexToBytes(response.blocktemplate_blob),
      parentStyle: 'pool',
      reservedOffset: response.reserved_offset,
      reserveSize: RESERVE_SIZE,
      height: response.height,
      difficulty: BigInt(response.difficulty),
    });
    const templates = new FakeTemplateSource({
      id: 1,
      template,
      height: response.height,
      networkDifficulty: BigInt(response.difficulty),
      prevHash: bytesToHex(template.prevId),
      receivedAtMs: Date.now(),
    });
    const hasher = testHasher();
    const backend = new PoolBackend(
      {
        ...DEFAULT_POOL_BACKEND_OPTIONS,
        vardiff: { ...DEFAULT_POOL_BACKEND_OPTIONS.vardiff, minDifficulty: 1 },
        minLoginDifficulty: 1,
        ban: { ...DEFAULT_BAN_POLICY_OPTIONS, enabled: false },
      },
      {
        templates,
        verifier: { verify: async (input) => hasher.hash(input), canAcceptWork: () => true, cancel: () => 0 },
        ledger: poolLedger,
        daemon,
        logger,
        bans: new FakeBanRegistry(),
      },
    );
    const { sessionId, job } = await backend.login(
      { login: `${ADDRESS}+1`, pass: 'x', agent: 'XMRig/6.16.0', algo: ['cn/upx2'] },
      connection(),
      new FakeSink(),
    );
    const metrics = createPoolMetrics({ backend: () => backend.metrics });
    return {
      keyPrefix,
      keys: createShareKeys(keyPrefix),
      ledger,
      backend,
      metrics,
      logLines,
      sessionId,
      job,
    };
  }

  /**
   * startPool with an event bus whose block-found and block-refused events are noted in order
   * (`found <foundAfterRefusal>`, `refused <reason>`), and another miner's share of 30 in the
   * open round (the block pays it too).
   */
  async function startPoolOfTwoMiners(label: string) {
    const events = createPoolEventBus((error) => {
      throw error;
    });
    const announced: string[] = [];
    events.subscribe('block-found', (found) => announced.push(`found ${found.foundAfterRefusal}`));
    events.subscribe('block-refused', (refused) => announced.push(`refused ${refused.reason}`));
    const pool = await startPool(label, events);
    await pool.ledger.recordShare({
      address: ADDRESS_2,
      worker: 'other',
      difficulty: 30,
      height: pool.job.height,
      timestampMs: Date.now(),
      solo: false,
      stale: false,
    });
    return { pool, events, announced };
  }

  /** A startPoolOfTwoMiners block confirmed: both miners credited per PPLNS (the finder's share at 1), the ledger consistent. */
  async function expectCreditedToBoth(
    pool: Awaited<ReturnType<typeof startPool>>,
    block: { readonly id: string; readonly rewardAtomic: bigint },
  ): Promise<void> {
    expect((await pool.ledger.getBlockCandidate(block.id))?.status).toBe('confirmed');
    const expected = pplnsSplit({
      reward: block.rewardAtomic,
      sharesNewestFirst: [
        { address: ADDRESS, difficulty: 1n, timestampMs: 0 },
        { address: ADDRESS_2, difficulty: 30n, timestampMs: 0 },
      ],
      windowDifficulty: 2n * BigInt(NETWORK_DIFFICULTY),
      finder: ADDRESS,
      fee: FEE.pool,
    });
    const balances = new RedisBalances({ keyPrefix: pool.keyPrefix }, { redis });
    for (const address of [ADDRESS, ADDRESS_2]) {
      expect((await balances.getBalance(address)).credited).toBe(expected.credits.get(address));
    }
    await expectLedgerConsistent(redis, pool.keyPrefix, [ADDRESS, ADDRESS_2]);
  }

  /** A process's event bus relayed over the test Redis (`keyPrefix` names the channel), as the pool node builds it. */
  async function startRelay(keyPrefix: string, origin: string): Promise<RedisEventRelay> {
    const relay = new RedisEventRelay(
      { keyPrefix, origin },
      { redis, local: createPoolEventBus(() => undefined), logger: silentLogger },
    );
    await relay.start();
    return relay;
  }

  /** Like XMRig: tries nonces until the hash meets the network difficulty, then submits it. */
  async function submitABlock(backend: PoolBackend, sessionId: string, job: StratumJob): Promise<string> {
    const hasher = testHasher();
    const input = hexToBytes(job.blob);
    for (let nonce = 0; ; nonce++) {
      new DataView(input.buffer, input.byteOffset).setUint32(39, nonce, true);
      const hash = hasher.hash(input);
      if (!checkHash(hash, NETWORK_DIFFICULTY)) continue;
      const nonceHex = bytesToHex(input.subarray(39, 43));
      await backend.submit(sessionId, { jobId: job.job_id, nonce: nonceHex, result: bytesToHex(hash) });
      return bytesToHex(hash);
    }
  }

  /** The one rejected block of the pool, once its refusal reason is recorded. */
  async function refusedRecord(pool: Awaited<ReturnType<typeof startPool>>): Promise<StoredBlockCandidate> {
    const hashes = await redis.zrange(pool.keys.blocksRejected, 0, -1);
    expect(hashes).toHaveLength(1);
    return until(
      async () => {
        const record = await pool.ledger.getBlockCandidate(hashes[0]!);
        return record?.refusalReason ? record : undefined;
      },
      5_000,
      'the refusal reason in the block record',
    );
  }

  function refusalLogLines(lines: readonly Record<string, unknown>[]): Record<string, unknown>[] {
    return lines.filter((line) => line['level'] === 50);
  }

  it('a valid block refused with the tip unchanged: pow-disagreement, blob kept, counted, logged, and block inspect shows it meets the target', async () => {
    const pool = await startPool('pow-disagreement');
    const heightBefore = devnet.chain.height;
    devnet.control.refuseValidBlocks(1);

    // The miner hears OK: the share was valid whatever the daemon thinks of the block.
    const powHash = await submitABlock(pool.backend, pool.sessionId, pool.job);
    const record = await refusedRecord(pool);
    expect(devnet.chain.height).toBe(heightBefore);
    expect(record).toMatchObject({
      height: heightBefore,
      status: 'rejected',
      submitResult: 'rejected',
      submitError: expect.stringContaining('-7'),
      refusalReason: 'pow-disagreement',
      networkDifficulty: BigInt(NETWORK_DIFFICULTY),
      blobHex: expect.stringMatching(/^09/),
    });

    const exposition = await pool.metrics.render();
    expect(exposition).toMatch(/^fuego_pool_blocks_refused_total\{reason="pow-disagreement"\} 1$/m);
    expect(exposition).toMatch(/^fuego_pool_blocks_total\{outcome="rejected"\} 1$/m);

    const errors = refusalLogLines(pool.logLines);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      blockId: record.hash,
      height: heightBefore,
      powHash,
      target: blockTargetHex(NETWORK_DIFFICULTY),
      networkDifficulty: String(NETWORK_DIFFICULTY),
      tipMoved: false,
      onChain: false,
      reason: 'pow-disagreement',
      likelyCause: expect.stringMatching(/cn\/upx2.*-O2/),
    });

    const configFile = join(configDir, 'pool.json');
    writeFileSync(
      configFile,
      JSON.stringify({ redis: { url: server.url, keyPrefix: pool.keyPrefix }, log: { level: 'silent' } }),
    );
    const inspected = await runCliForTest([
      'block',
      'inspect',
      '--config',
      configFile,
      '--block',
      record.hash,
    ]);
    expect(inspected.code).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({
      blockId: record.hash,
      height: heightBefore,
      powHash,
      difficulty: NETWORK_DIFFICULTY,
      target: blockTargetHex(NETWORK_DIFFICULTY),
      meetsTarget: true,
      blockRecord: { status: 'rejected', refusalReason: 'pow-disagreement' },
    });
    const missing = await runCliForTest([
      'block',
      'inspect',
      '--config',
      configFile,
      '--block',
      'ab'.repeat(32),
    ]);
    expect(missing.code).toBe(1);

    // The kept blob is the whole block: with the fault over, the daemon takes it as it is.
    await daemon.submitBlock(record.blobHex!);
    expect(devnet.chain.tip.id).toBe(record.hash);
  });

  it('a refused block is told to the operator: block-refused, relayed from the stratum node to the leader, reaches its webhook once with the reason and likely cause', async () => {
    const cluster = uniquePrefix('refused-events');
    const stratumNode = await startRelay(cluster, 'stratum-node');
    const leaderNode = await startRelay(cluster, 'leader-node');
    const hook = await startReplayServer(() => ({ status: 200, body: 'ok' }));
    // The leader's notifier with the default events, as an operator who lists none has it.
    const notifier = createWebhookNotifier(
      notificationConfigSchema.parse({
        webhooks: [{ url: `http://127.0.0.1:${hook.port}/hook`, includeAddresses: true }],
      }),
      { events: notificationEventsOf(leaderNode.bus), logger: silentLogger },
    );
    try {
      const pool = await startPool('refused-notified', stratumNode.bus);
      devnet.control.refuseValidBlocks(1);

      await submitABlock(pool.backend, pool.sessionId, pool.job);
      const record = await refusedRecord(pool);
      const request = await until(() => hook.requests[0], 5_000, 'the block-refused webhook');
      expect(JSON.parse(request.body)).toMatchObject({
        event: 'block-refused',
        data: {
          height: record.height,
          hash: record.hash,
          finderAddress: ADDRESS,
          solo: false,
          timestampMs: record.timestampMs,
          reason: 'pow-disagreement',
          likelyCause: expect.stringMatching(/cn\/upx2.*-O2/),
        },
      });
      // Once per block.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.requests).toHaveLength(1);
    } finally {
      await notifier.close();
      await hook.close();
      stratumNode.stop();
      leaderNode.stop();
    }
  });

  it('a block the daemon answers -7 but takes (a duplicate submit): already-on-chain, recorded as found, credited at depth by the unlocker', async () => {
    const { pool, announced } = await startPoolOfTwoMiners('refused-on-chain');
    const heightBefore = devnet.chain.height;
    devnet.control.refuseButAccept(1);

    await submitABlock(pool.backend, pool.sessionId, pool.job);
    expect(devnet.chain.height).toBe(heightBefore + 1);
    const block = devnet.chain.tip;
    const record = await until(
      async () => {
        const stored = await pool.ledger.getBlockCandidate(block.id);
        return stored?.status === 'pending' ? stored : undefined;
      },
      5_000,
      'the refused block recorded as found',
    );
    // The miner logged in at +1: the solving share is credited at 1.
    expect(record).toMatchObject({
      height: heightBefore,
      submitResult: 'rejected',
      refusalReason: 'already-on-chain',
      round: { totalDifficulty: 31n, shareCount: 2 },
    });
    expect(await redis.zrange(pool.keys.blocksRejected, 0, -1)).toEqual([]);
    // Announced as found after its refusal, never as refused.
    expect(announced).toEqual(['found true']);
    expect(await pool.metrics.render()).toMatch(
      /^fuego_pool_blocks_refused_total\{reason="already-on-chain"\} 1$/m,
    );
    // Nothing lost, nothing to do: a warning that says so, no error.
    expect(refusalLogLines(pool.logLines)).toEqual([]);
    expect(pool.logLines.filter((line) => line['reason'] === 'already-on-chain')).toEqual([
      expect.objectContaining({ level: 40, onChain: true, likelyCause: expect.stringMatching(/credit/) }),
    ]);

    const unlocker = unlockerOn(
      redis,
      pool.keyPrefix,
      { scheme: 'pplns', confirmDepth: 3, pplnsWindowFactor: 2 },
      { daemon, logger: silentLogger },
    );
    expect((await unlocker.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: block.id, outcome: 'pending' }),
    ]);
    devnet.control.mineBlocks(3);
    expect((await unlocker.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: block.id, outcome: 'confirmed', rewardAtomic: block.rewardAtomic }),
    ]);
    await expectCreditedToBoth(pool, block);
  });

  it('a stale block the daemon kept as an alternative block, put on the main chain by a later reorg: the leader promotes it (block-found after the refusal) and credits it at depth', async () => {
    const { pool, events, announced } = await startPoolOfTwoMiners('stale-kept-then-on-chain');
    // Another miner's block arrives before this pool's job changes; the daemon keeps the pool's.
    const [rival] = devnet.control.mineBlocks(1);
    await submitABlock(pool.backend, pool.sessionId, pool.job);
    const record = await refusedRecord(pool);
    expect(record).toMatchObject({ status: 'rejected', refusalReason: 'stale-tip', height: rival!.height });
    expect(devnet.chain.blockById(record.hash)?.orphaned).toBe(true);

    // The network builds on the pool's block: the daemon switches to that branch.
    const { orphaned } = devnet.control.mineOnBlock(record.hash, 1);
    expect(orphaned.map((block) => block.id)).toEqual([rival!.id]);
    const block = devnet.chain.blockAt(record.height)!;
    expect(block.id).toBe(record.hash);

    const CONFIRM_DEPTH = 3;
    const unlocker = unlockerOn(
      redis,
      pool.keyPrefix,
      { scheme: 'pplns', confirmDepth: CONFIRM_DEPTH, pplnsWindowFactor: 2 },
      { daemon, logger: silentLogger },
    );
    const leader = new LeaderLoop(
      { unlockIntervalMs: 3_600_000, payoutIntervalMs: null },
      // Payouts are off (null interval): the runner is never called.
      { unlocker, payouts: undefined as never, events, logger: silentLogger },
    );
    await leader.unlockOnce();
    expect(await pool.ledger.getBlockCandidate(block.id)).toMatchObject({
      status: 'pending',
      refusalReason: 'already-on-chain',
    });
    expect(announced).toEqual(['refused stale-tip', 'found true']);

    devnet.control.mineBlocks(CONFIRM_DEPTH);
    await leader.unlockOnce();
    await expectCreditedToBoth(pool, block);
    expect(announced).toEqual(['refused stale-tip', 'found true']);
  });

  it('a block refused because the tip moved after the template: stale-tip', async () => {
    const pool = await startPool('stale-tip');
    // Another miner's block arrives; this pool does not hear of it before its miner submits.
    devnet.control.mineBlocks(1);

    await submitABlock(pool.backend, pool.sessionId, pool.job);
    const record = await refusedRecord(pool);
    expect(record).toMatchObject({ status: 'rejected', refusalReason: 'stale-tip' });
    expect(await pool.metrics.render()).toMatch(/^fuego_pool_blocks_refused_total\{reason="stale-tip"\} 1$/m);
    expect(refusalLogLines(pool.logLines)).toEqual([
      expect.objectContaining({ tipMoved: true, onChain: false, reason: 'stale-tip' }),
    ]);
  });
});
