import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LeaderLoop } from '../../../src/leader/leader-loop.js';
import { createPoolEventBus, type PoolEventMap } from '../../../src/pool/events.js';
import { DaemonClient } from '../../../src/rpc/daemon-client.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { daemonClientFor } from '../unlocker/unlocker-kit.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { threeMinersPayFeeRunner } from './payout-runner-for.js';
import { fundThreeMiners, unlessWalletHeld } from './payout-test-kit.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const RESTART_WALLETD = 'restart walletd (it then cancels it and the miners are credited back)';

type Unmined = PoolEventMap['payout-unmined'];

/**
 * A sent payout whose transaction is not mined 6 hours after its send: the leader asks fuegod where
 * the transaction is and tells the operator once (a payout-unmined notification, with fuegod's
 * answer and what `fuego-pool report` advises), never before the 6 hours, never again after a
 * restart or a failover (the mark is in Redis), and not while fuegod cannot answer (a later pass
 * tells it).
 */
describe('a sent payout not mined 6 hours after its send', () => {
  const env = usePayoutDevnet();
  let daemon: DaemonClient;
  /** A daemon client nobody answers (port 9: discard, closed on the test machine). */
  let downDaemon: DaemonClient;

  beforeAll(() => {
    daemon = daemonClientFor(env.devnet, 2_000);
    downDaemon = new DaemonClient({ host: '127.0.0.1', port: 9, timeoutMs: 500, retries: 0 });
  });
  afterAll(() => {
    daemon?.close();
    downDaemon?.close();
  });

  /**
   * One leader term on the test's clock: a runner (fuegod reached through `fuegod`) inside a
   * leader loop that publishes what each pass reports; `heard` is what the notifier would get.
   */
  function leaderTerm(keyPrefix: string, clock: () => number, fuegod: DaemonClient = daemon) {
    const events = createPoolEventBus(() => undefined);
    const heard: Unmined[] = [];
    events.subscribe('payout-unmined', (p) => heard.push(p));
    const logs = captureLogs('info');
    const runner = threeMinersPayFeeRunner(
      env.redis,
      keyPrefix,
      { wallet: env.wallet, daemon: fuegod, logger: logs.logger, clock },
      80_000n,
    );
    const loop = new LeaderLoop(
      { unlockIntervalMs: HOUR_MS, payoutIntervalMs: null },
      { unlocker: undefined as never, payouts: runner, events, logger: silentLogger },
    );
    return {
      heard,
      logs,
      pass: () => unlessWalletHeld(() => loop.payOnce()),
      /** One pass as it comes (fuegod down, the runner's health check holds every pass). */
      passOnce: () => loop.payOnce(),
    };
  }

  /** Three miners funded and paid by one pass of a leader whose clock the test sets: the batch it sent. */
  async function oneSentBatch(label: string) {
    const { keyPrefix } = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    let nowMs = Date.now();
    const term = leaderTerm(keyPrefix, () => nowMs);
    const sent = await term.pass();
    expect(sent.batches.map((b) => b.state)).toEqual(['sent']);
    const batch = (await new PayoutStore({ keyPrefix }, { redis: env.redis }).getBatch(
      sent.batches[0]!.batchId,
    ))!;
    return {
      term,
      batch,
      setNow: (ms: number) => {
        nowMs = ms;
      },
    };
  }

  it('fuegod has it nowhere: one notification after 6 hours that says so and to restart walletd, none before, none again after a restart', async () => {
    const label = 'unmined-nowhere';
    const { keyPrefix } = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    let nowMs = Date.now();
    const clock = () => nowMs;
    const term = leaderTerm(keyPrefix, clock);
    // Sent while walletd trails the chain by a block, and dropped by fuegod before walletd caught
    // up: no pool sync of walletd ever saw it, so walletd holds it unconfirmed for good.
    env.devnet.control.holdWalletScan();
    env.devnet.control.mineBlocks(1);
    let sent: Awaited<ReturnType<typeof term.pass>>;
    try {
      sent = await term.pass();
    } finally {
      env.devnet.control.releaseWalletScan();
    }
    expect(sent.batches.map((b) => b.state)).toEqual(['sent']);
    const batch = (await new PayoutStore({ keyPrefix }, { redis: env.redis }).getBatch(
      sent.batches[0]!.batchId,
    ))!;
    expect(env.devnet.control.dropFromMempool(batch.txHash!)).toBe(true);
    env.devnet.control.mineBlocks(2);
    const sentMs = batch.resolvedAtMs!;

    // A payout confirms within ~1.5 h; 5 h 59 min is not late yet: nothing is said.
    nowMs = sentMs + 5 * HOUR_MS + 59 * MINUTE_MS;
    await term.pass();
    expect(term.heard).toEqual([]);

    nowMs = sentMs + 6 * HOUR_MS + MINUTE_MS;
    await term.pass();
    expect(term.heard).toEqual([
      {
        batchId: batch.id,
        transactionHash: batch.txHash,
        recipients: 3,
        amountAtomic: batch.totalAmountAtomic,
        sentAtMs: sentMs,
        ageMs: 6 * HOUR_MS + MINUTE_MS,
        sighting: 'nowhere',
        blockHeight: null,
        advice: `fuegod has it nowhere (not in a block, not in its pool): ${RESTART_WALLETD}`,
        timestampMs: expect.any(Number),
      },
    ]);
    nowMs += HOUR_MS;
    await term.pass();
    expect(term.heard).toHaveLength(1);

    // The leader restarts (or another node takes over): a new runner, loop and bus, same Redis.
    const next = leaderTerm(keyPrefix, clock);
    nowMs += HOUR_MS;
    await next.pass();
    await next.pass();
    expect(next.heard).toEqual([]);
  });

  it('fuegod unreachable: nothing is said nor marked, and the next pass that reaches it says it is still in its pool', async () => {
    const label = 'unmined-in-pool';
    const { keyPrefix } = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    let nowMs = Date.now();
    const clock = () => nowMs;
    const sent = await leaderTerm(keyPrefix, clock).pass();
    expect(sent.batches.map((b) => b.state)).toEqual(['sent']);
    const txHash = sent.batches[0]!.txHash!;
    // Not mined since: still in fuegod's pool.
    const batch = (await new PayoutStore({ keyPrefix }, { redis: env.redis }).getBatch(
      sent.batches[0]!.batchId,
    ))!;
    nowMs = batch.resolvedAtMs! + 7 * HOUR_MS;

    const cut = leaderTerm(keyPrefix, clock, downDaemon);
    const toldFuegodDown = () =>
      cut.logs.records.some(
        (r) =>
          (r['batchIds'] as unknown[] | undefined)?.includes(batch.id) && /fuegod/.test(String(r['msg'])),
      );
    // A pass the devnet wallet misses its timeout in reaches no step: a few passes at most.
    for (let pass = 0; pass < 10 && !toldFuegodDown(); pass++) await cut.passOnce();
    await cut.passOnce();
    expect(cut.heard).toEqual([]);
    expect(toldFuegodDown()).toBe(true);

    const term = leaderTerm(keyPrefix, clock);
    await term.pass();
    expect(term.heard).toMatchObject([
      {
        batchId: batch.id,
        transactionHash: txHash,
        sighting: 'in-pool',
        blockHeight: null,
        ageMs: 7 * HOUR_MS,
        advice: "fuegod still has it in its pool: it may be mined yet (check fuegod's peers if it stays)",
      },
    ]);
    await term.pass();
    expect(term.heard).toHaveLength(1);
  });

  it('a pass reads the sent batches and the wallet-missing marks once, for its watch and its notice alike', async () => {
    const label = 'unmined-reads';
    const { term, batch, setNow } = await oneSentBatch(label);
    // Not mined since (still in fuegod's pool), 7 hours on: the watch reads it, the notice tells it.
    setNow(batch.resolvedAtMs! + 7 * HOUR_MS);
    const listed = vi.spyOn(PayoutStore.prototype, 'listUnconfirmedSent');
    const missing = vi.spyOn(PayoutStore.prototype, 'walletMissingSince');
    try {
      await term.pass();
      expect(term.heard.map((p) => [p.batchId, p.sighting])).toEqual([[batch.id, 'in-pool']]);
      expect(listed).toHaveBeenCalledTimes(1);
      expect(missing).toHaveBeenCalledTimes(1);
    } finally {
      listed.mockRestore();
      missing.mockRestore();
    }
  });

  it('mined in a block walletd has not scanned: says which block, and that walletd has not seen it', async () => {
    const label = 'unmined-in-block';
    const { term, batch, setNow } = await oneSentBatch(label);
    env.devnet.control.holdWalletScan();
    try {
      const [block] = env.devnet.control.mineBlocks(1);
      expect(block!.transactions.map((t) => t.hash)).toContain(batch.txHash);
      setNow(batch.resolvedAtMs! + 8 * HOUR_MS);
      await term.pass();
      expect(term.heard).toMatchObject([
        {
          batchId: batch.id,
          sighting: 'in-block',
          blockHeight: block!.height,
          advice: `fuegod has it in block ${block!.height}: walletd has not seen it yet (restart walletd if that lasts)`,
        },
      ]);
    } finally {
      env.devnet.control.releaseWalletScan();
    }
  });
});
