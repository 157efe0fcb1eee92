import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../../src/log/logger.js';
import { type Ban, type BanEntry, type BanRegistry, banEntry } from '../../../src/pool/ban-registry.js';
import { createPoolEventBus, type PoolEventBus } from '../../../src/pool/events.js';
import type { PayoutRunSummary, UpkeepReport } from '../../../src/pool/payouts/payout-reports.js';
import type {
  ControlBackend,
  ControlPayouts,
  ControlStats,
  ControlStratum,
  ControlTemplates,
} from '../../../src/servers/control/control-handler.js';
import type { ControlServerModules } from '../../../src/servers/control/control-server.js';

export const MINER_A = `fire${'A'.repeat(94)}`;
export const MINER_B = `fire${'B'.repeat(94)}`;

/** The pool's bans by IP, on a fixed clock; `failing` makes every call reject (Redis away). */
export class FakeBans implements Pick<BanRegistry, 'list' | 'ban' | 'unban'> {
  readonly entries = new Map<string, BanEntry>();
  failing = false;
  readonly #nowMs: number;

  constructor(nowMs: number) {
    this.#nowMs = nowMs;
  }

  async list(): Promise<BanEntry[]> {
    this.#check();
    return [...this.entries.values()];
  }

  async ban(ban: Ban): Promise<BanEntry> {
    this.#check();
    const entry = banEntry(ban, this.#nowMs);
    this.entries.set(ban.ip, entry);
    return entry;
  }

  async unban(ip: string): Promise<boolean> {
    this.#check();
    return this.entries.delete(ip);
  }

  #check(): void {
    if (this.failing) throw new Error('Connection is closed.');
  }
}

/** The pool core's counters. */
export class FakeBackend implements ControlBackend {
  get metrics(): ControlBackend['metrics'] {
    return {
      sharesAccepted: 1200,
      sharesStale: 7,
      sharesRejected: { LOW_DIFFICULTY: 3, DUPLICATE_SHARE: 2 },
      blocksFound: 2,
      blocksAccepted: 2,
      blocksRejected: 0,
      blockSubmitErrors: 0,
      bansIssued: 4,
    };
  }
}

export const fakeStratum: ControlStratum = {
  metrics: () => ({
    connections: { current: 12, total: 40, refused: {}, floodDropped: 0 },
    byPort: { '3333': { current: 10, total: 30 }, '5555': { current: 2, total: 10 } },
    sessions: 11,
  }),
};

export const fakeTemplates: ControlTemplates = {
  status: () => ({
    healthy: true,
    consecutiveFailures: 0,
    lastError: undefined,
    templateAgeMs: 4_200,
    height: 812_345,
  }),
};

export const fakeStats: ControlStats = {
  poolHashrate: async () => ({ hashrate: 1_234_567, miners: 8, workers: 11 }),
  topMiners: async (limit) =>
    [
      { address: MINER_A, hashrate: 950_000, activeWorkers: 3, lastShareMs: 1_700_000_000_000 - 12_000 },
      { address: MINER_B, hashrate: 1_500, activeWorkers: 1, lastShareMs: 1_700_000_000_000 - 95_000 },
    ].slice(0, limit),
};

export const SUMMARY: PayoutRunSummary = {
  skipped: null,
  detail: '',
  recovered: [],
  batches: [
    {
      batchId: 'b-1',
      state: 'sent',
      recipients: 3,
      amountAtomic: 123_456_789n,
      txHash: 'ab'.repeat(32),
      networkFeeAtomic: 80_000n,
      note: '',
    },
    {
      batchId: 'b-2',
      state: 'sent',
      recipients: 1,
      amountAtomic: 10_000_000n,
      txHash: 'cd'.repeat(32),
      networkFeeAtomic: 80_000n,
      note: '',
    },
  ],
  stillOpen: [],
  unknownPayments: [],
  walletMissing: [],
  unmined: [],
  skippedMiners: [],
};

export const UPKEEP_REPORT: UpkeepReport = {
  state: 'pending',
  detail: '2 fusion transaction(s) sent (operator: 261 of 336 outputs ready to join)',
  trigger: 'operator',
  estimate: { fusionReadyCount: 0, totalOutputCount: 77 },
  sent: ['f1'.repeat(32), 'f2'.repeat(32)],
  confirmed: [],
  pending: ['f1'.repeat(32), 'f2'.repeat(32)],
};

/**
 * A leader whose pass publishes payment-sent for each batch (as LeaderLoop does) after `delayMs`,
 * and whose wallet optimization answers `upkeepReport` after `delayMs`.
 */
export function fakeLeader(
  events: PoolEventBus,
  delayMs = 30,
): ControlPayouts & { calls: number; optimizeCalls: number; upkeepReport: UpkeepReport } {
  const leader = {
    calls: 0,
    optimizeCalls: 0,
    upkeepReport: UPKEEP_REPORT,
    async optimizeWallet(): Promise<UpkeepReport> {
      leader.optimizeCalls += 1;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return leader.upkeepReport;
    },
    async payOnce(): Promise<PayoutRunSummary> {
      leader.calls += 1;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      for (const batch of SUMMARY.batches) {
        events.publish('payment-sent', {
          batchId: batch.batchId,
          transactionHash: batch.txHash ?? '',
          recipients: batch.recipients,
          amountAtomic: batch.amountAtomic,
          feeAtomic: 80_000n,
          timestampMs: 1_700_000_000_000,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return SUMMARY;
    },
  };
  return leader;
}

export const silentLogger = createLogger({ level: 'silent' });

export type ControlTestModules = ControlServerModules & {
  backend: FakeBackend;
  bans: FakeBans;
  events: PoolEventBus;
  /** The leader behind `leader()` (unless overridden). */
  leaderFake: ReturnType<typeof fakeLeader>;
};

/** Every role in one process, as the default config runs: stratum, leading leader, stats. */
export function controlModules(overrides: Partial<ControlServerModules> = {}): ControlTestModules {
  const events = createPoolEventBus(() => undefined);
  const leaderFake = fakeLeader(events);
  return {
    backend: new FakeBackend(),
    bans: new FakeBans(1_700_000_000_000),
    stratum: fakeStratum,
    templates: () => fakeTemplates,
    leader: () => leaderFake,
    events,
    stats: fakeStats,
    logger: silentLogger,
    clock: () => 1_700_000_000_000,
    ...overrides,
    leaderFake,
  } as ControlTestModules;
}

export interface TempDir {
  readonly path: string;
  remove(): void;
}

/** A private directory for sockets (short path: sun_path is ~100 bytes). */
export function tempDir(): TempDir {
  const path = mkdtempSync(join(tmpdir(), 'fpc-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
