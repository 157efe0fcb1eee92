import type { FaultPoints } from '../../src/fault-points.js';
import type { PayoutStep } from '../../src/leader/payouts/batch-sender.js';
import type { PayoutRunSummary } from '../../src/pool/payouts/payout-reports.js';
import { CrashingRedis, SoakCrash } from './money-soak-crash.js';
import { lostBatchPass } from './money-soak-unknown-steps.js';
import type { SoakPool, SoakRandom, StepKind } from './money-soak-world.js';

/**
 * The leader's crashes, fuegod's outages and Redis restarts as soak steps (money-soak-steps.ts
 * draws them with the others). A crashed process writes nothing after its crash point; the next
 * unlock run or payout pass is a fresh instance on the same Redis, as a restarted leader's.
 */

const PAYOUT_POINTS: readonly PayoutStep[] = [
  'intent-written',
  'sending-marked',
  'wallet-called',
  'result-recorded',
];

/** Fault points that act at the `nth` time `point` is reached (a pass sends several batches). */
function atPoint(
  point: PayoutStep,
  nth: number,
  act: (batchId: string) => Promise<void>,
): FaultPoints<PayoutStep> {
  let hits = 0;
  return {
    async reached(at, batchId) {
      if (at === point && ++hits === nth) await act(batchId);
    },
  };
}

/**
 * The payout lock a crashed pass held expires (its TTL) before the restarted leader's next pass;
 * the soak does not wait it out in real time.
 */
async function lockExpires(pool: SoakPool): Promise<void> {
  await pool.shared.redis.del(pool.store.keys.payoutLock);
}

/** A pass's outcome for the step list: its summary, or where it stopped and why. */
async function passOutcome(run: () => Promise<PayoutRunSummary>, stopped: () => boolean): Promise<string> {
  try {
    const summary = await run();
    return `done batches=${summary.batches.map((b) => b.state).join(',') || '-'} skipped=${summary.skipped ?? '-'}`;
  } catch (error) {
    // Only the fault this step made may stop the pass; anything else is a soak failure.
    if (!stopped()) throw error;
    return `stopped (${error instanceof SoakCrash ? error.message : (error as Error).name})`;
  }
}

/**
 * The leader dies in a payout pass: armed for the next pass that reaches a batch's named step
 * (between "sending" durable and the wallet's reply, say: most passes pay nobody), or at once after
 * some Redis calls (in the recovery of open batches, say), when half the time the restarted
 * leader's pass follows at once.
 */
async function crashPayout(pool: SoakPool, random: SoakRandom): Promise<string> {
  if (random.next() < 0.7) {
    pool.armedPayoutCrash = { point: random.pick(PAYOUT_POINTS), nth: random.int(1, 2) };
    return `crash-payout armed at ${pool.armedPayoutCrash.point} #${pool.armedPayoutCrash.nth}`;
  }
  const crashing = new CrashingRedis(pool.shared.redis, random.int(0, 30));
  const outcome = await passOutcome(
    () => pool.runner({ redis: crashing.connection }).runOnce(),
    () => crashing.crashed,
  );
  const where = `after ${crashing.calls} Redis calls`;
  if (!crashing.crashed) return `crash-payout ${where}: not reached, ${outcome}`;
  await lockExpires(pool);
  const line = `crash-payout ${where}: ${outcome}`;
  if (random.next() < 0.5) return line;
  const next = await pool.runner().runOnce();
  return `${line}; restarted pass batches=${next.batches.length} recovered=${next.recovered.length}`;
}

/**
 * A payout pass of the leader (the `payout` step), which dies at the crash armed for it if it
 * reaches its point (the armed crash then goes), or else loses its batch as `lost-batch` armed it
 * (money-soak-unknown-steps.ts); `describe` makes the line of a pass that ends.
 */
export async function payoutPass(
  pool: SoakPool,
  describe: (summary: PayoutRunSummary) => string,
): Promise<string> {
  const armed = pool.armedPayoutCrash;
  if (armed === null && pool.armedLoss !== null) return lostBatchPass(pool, describe);
  if (armed === null) return describe(await pool.runner().runOnce());
  const crashing = new CrashingRedis(pool.shared.redis);
  const faults = atPoint(armed.point, armed.nth, async (batchId) => {
    crashing.crash();
    throw new SoakCrash(`at ${armed.point} #${armed.nth} of ${batchId.slice(0, 12)}`);
  });
  try {
    return describe(await pool.runner({ redis: crashing.connection, faults }).runOnce());
  } catch (error) {
    if (!crashing.crashed) throw error;
    pool.armedPayoutCrash = null;
    await lockExpires(pool);
    return `crashed ${error instanceof SoakCrash ? error.message : `(${(error as Error).name})`}`;
  }
}

/** The leader dies in an unlock run after some Redis calls; a fresh unlocker carries on. */
async function crashUnlock(pool: SoakPool, random: SoakRandom): Promise<string> {
  const crashing = new CrashingRedis(pool.shared.redis, random.int(0, 15));
  const dying = pool.freshUnlocker(crashing.connection);
  let outcome: string;
  try {
    const summary = await dying.runOnce();
    outcome = summary.decisions.map((d) => d.outcome).join(',') || '-';
  } catch (error) {
    if (!crashing.crashed) throw error;
    outcome = 'stopped';
  }
  pool.unlocker = pool.freshUnlocker(pool.shared.redis);
  if (!crashing.crashed) return `crash-unlock: not reached (${crashing.calls} calls), ${outcome}`;
  return `crash-unlock after ${crashing.calls} Redis calls: ${outcome}`;
}

/** fuegod unreachable (not listening) for the next few steps: unlock runs, passes and sends meet it. */
async function daemonOutage(pool: SoakPool, random: SoakRandom): Promise<string> {
  if (pool.daemonDownSteps > 0) return `daemon-outage (down already, ${pool.daemonDownSteps} steps left)`;
  pool.daemonDownSteps = random.int(1, 6);
  await pool.devnet.control.setDaemonAvailability({ kind: 'unreachable' });
  return `daemon-outage: fuegod unreachable for ${pool.daemonDownSteps} steps`;
}

/** After each step: an outage's count of steps goes down, and fuegod listens again at zero. */
export async function daemonOutageTick(pool: SoakPool): Promise<void> {
  if (pool.daemonDownSteps === 0) return;
  pool.daemonDownSteps -= 1;
  if (pool.daemonDownSteps === 0) await pool.devnet.control.setDaemonAvailability({ kind: 'up' });
}

/** fuegod listens again now (the drain starts from a reachable daemon). */
export async function endDaemonOutage(pool: SoakPool): Promise<void> {
  pool.daemonDownSteps = 0;
  await pool.devnet.control.setDaemonAvailability({ kind: 'up' });
}

/**
 * Redis restarted (AOF fsynced on every write: nothing lost): between two steps, while a pass
 * waits at a batch's step (it then carries on), or stopped at that step and started only after the
 * pass has failed on it (the lock it could not release expires).
 */
async function redisRestart(pool: SoakPool, random: SoakRandom): Promise<string> {
  const { shared } = pool;
  const mode = random.pick(['between-steps', 'paused-pass', 'down-in-pass'] as const);
  if (mode === 'between-steps') {
    await shared.stopRedis();
    await shared.startRedis();
    return 'redis-restart between steps';
  }
  const point = random.pick(PAYOUT_POINTS);
  let down = false;
  const faults = atPoint(point, 1, async () => {
    down = true;
    await shared.stopRedis();
    if (mode === 'paused-pass') await shared.startRedis();
  });
  const outcome = await passOutcome(
    () => pool.runner({ faults }).runOnce(),
    () => down && mode === 'down-in-pass',
  );
  if (mode === 'down-in-pass' && down) {
    await shared.startRedis();
    await lockExpires(pool);
  }
  return `redis-restart ${mode} at ${point}${down ? '' : ' (not reached)'}: ${outcome}`;
}

/** Weights kept low where a step costs real time (a Redis restart waits for the reconnect). */
export const FAULT_STEP_KINDS: readonly StepKind[] = [
  { name: 'crash-payout', weight: 1.5, run: crashPayout },
  { name: 'crash-unlock', weight: 1, run: crashUnlock },
  { name: 'daemon-outage', weight: 1, run: daemonOutage },
  { name: 'redis-restart', weight: 0.5, run: redisRestart },
];
