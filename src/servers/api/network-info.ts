import type { z } from 'zod';
import type { Logger } from '../../log/logger.js';
import type { PoolEventBus } from '../../pool/events.js';
import type { DaemonInfo, FeePoolInfo, HeatDeposit } from '../../rpc/daemon-schemas.js';
import type { feePoolSchema, heatDepositsSchema, networkSchema } from './api-schemas.js';

/** The daemon calls the API needs (DaemonClient has them). */
export interface NetworkDaemon {
  getInfo(): Promise<DaemonInfo>;
  /** Optional endpoint: throws an error with code RPC_NOT_SUPPORTED on a daemon without it. */
  getFeePoolInfo(): Promise<FeePoolInfo>;
  /** Optional endpoint: throws an error with code RPC_NOT_SUPPORTED on a daemon without it. */
  getDeposits(): Promise<HeatDeposit[]>;
}

export type NetworkView = z.infer<typeof networkSchema>;
type FeePoolView = z.infer<typeof feePoolSchema>;
type HeatView = z.infer<typeof heatDepositsSchema>;

const NOT_AVAILABLE = 'not available on this node';
/** After RPC_NOT_SUPPORTED an optional endpoint is asked again only this often (daemon upgrades). */
const UNSUPPORTED_RECHECK_MS = 600_000;

export interface NetworkInfoOptions {
  readonly refreshMs: number;
  readonly extrasRefreshMs: number;
}

export interface NetworkInfoModules {
  readonly daemon: NetworkDaemon;
  readonly logger: Logger;
  readonly clock: () => number;
  /** Milliseconds that only go forward (monotonicMs), for the age of the last success. */
  readonly elapsedClock: () => number;
  /** Receives `network-block` when the tip moves. */
  readonly events?: PoolEventBus;
}

export interface NetworkStatus {
  /** On the elapsed clock (NetworkInfoModules.elapsedClock): for ages only, never a date. */
  readonly lastSuccessElapsedMs: number | null;
  readonly lastError: string | null;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The asset a deposit kind's amounts are in, where the interface says (a `HEAT` deposit is a
 * certificate of deposit locking HEAT); other kinds (mint/burn markers) are not named: null.
 */
const DEPOSIT_KIND_ASSETS: ReadonlyMap<string, string> = new Map([['HEAT', 'HEAT']]);

/**
 * Count and amount per deposit kind. No total over kinds: they are different assets, and a sum
 * of them means nothing.
 */
function summariseDeposits(deposits: readonly HeatDeposit[]): HeatView {
  const byType = new Map<string, { count: number; amountAtomic: bigint }>();
  for (const deposit of deposits) {
    const entry = byType.get(deposit.deposit_type) ?? { count: 0, amountAtomic: 0n };
    entry.count += 1;
    entry.amountAtomic += BigInt(deposit.amount);
    byType.set(deposit.deposit_type, entry);
  }
  return {
    status: 'ok',
    count: deposits.length,
    byType: Object.fromEntries(
      [...byType].map(([kind, e]) => [
        kind,
        {
          asset: DEPOSIT_KIND_ASSETS.get(kind) ?? null,
          count: e.count,
          amountAtomic: e.amountAtomic.toString(),
        },
      ]),
    ),
  };
}

/**
 * Network facts for the API, polled from the daemon in the background so that no HTTP request
 * ever waits on (or multiplies calls to) fuegod. getinfo every `refreshMs`; the optional fee-pool
 * and HEAT endpoints every `extrasRefreshMs`, and after RPC_NOT_SUPPORTED only every 10 minutes,
 * shown as "not available on this node".
 */
export class NetworkInfoCache {
  readonly #options: NetworkInfoOptions;
  readonly #modules: NetworkInfoModules;
  #info: DaemonInfo | null = null;
  #infoAtMs = 0;
  #feePool: FeePoolView = { status: 'unknown', message: 'not polled yet' };
  #heat: HeatView = { status: 'unknown', message: 'not polled yet' };
  #nextExtrasMs = 0;
  /** The delay #nextExtrasMs was set with. */
  #extrasDelayMs = 0;
  #lastSuccessElapsedMs: number | null = null;
  #lastError: string | null = null;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | null = null;
  #stopped = true;

  constructor(options: NetworkInfoOptions, modules: NetworkInfoModules) {
    this.#options = options;
    this.#modules = modules;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    void this.#loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** null until the first getinfo succeeded. */
  view(): NetworkView | null {
    const info = this.#info;
    if (info === null) return null;
    return {
      height: info.height,
      difficulty: String(info.difficulty),
      lastBlockRewardAtomic: String(info.last_block_reward),
      lastBlockTimestampMs: info.last_block_timestamp * 1000,
      topBlockHash: info.top_block_hash,
      majorVersion: info.block_major_version,
      minorVersion: info.block_minor_version,
      daemonVersion: info.version,
      depositsLockedAtomic: String(info.full_deposit_amount),
      txPoolSize: info.tx_pool_size,
      updatedAtMs: this.#infoAtMs,
      feePool: this.#feePool,
      heatDeposits: this.#heat,
    };
  }

  /** The raw getinfo of the last poll (for the classic API's lastblock). */
  info(): DaemonInfo | null {
    return this.#info;
  }

  status(): NetworkStatus {
    return { lastSuccessElapsedMs: this.#lastSuccessElapsedMs, lastError: this.#lastError };
  }

  /** One poll (the timer calls it; tests call it directly). Never throws. */
  async refresh(): Promise<void> {
    const { daemon, clock, logger } = this.#modules;
    try {
      const info = await daemon.getInfo();
      const previous = this.#info;
      this.#info = info;
      this.#infoAtMs = clock();
      this.#lastSuccessElapsedMs = this.#modules.elapsedClock();
      this.#lastError = null;
      if (previous !== null && previous.top_block_hash !== info.top_block_hash && info.height > 0) {
        this.#modules.events?.publish('network-block', {
          height: info.height - 1,
          hash: info.top_block_hash,
          difficulty: BigInt(info.last_block_difficulty),
          timestampMs: info.last_block_timestamp * 1000,
        });
      }
    } catch (error) {
      this.#lastError = errorCode(error) ?? (error instanceof Error ? error.message : String(error));
      logger.warn({ err: error }, 'network info poll failed');
      return;
    }
    if (this.#extrasDue(clock())) await this.#refreshExtras();
  }

  /** Due at #nextExtrasMs, or now if that is further ahead than its delay (the clock was set back). */
  #extrasDue(now: number): boolean {
    return now >= this.#nextExtrasMs || this.#nextExtrasMs - now > this.#extrasDelayMs;
  }

  async #refreshExtras(): Promise<void> {
    const { daemon, clock } = this.#modules;
    let unsupported = false;
    const [feePool, heat] = await Promise.allSettled([daemon.getFeePoolInfo(), daemon.getDeposits()]);
    if (feePool.status === 'fulfilled') {
      this.#feePool = {
        status: 'ok',
        balanceAtomic: String(feePool.value.fee_pool_balance),
        currentEpochSwapFeesAtomic: String(feePool.value.current_epoch_swap_fees),
        totalCdLockedAtomic: String(feePool.value.total_cd_locked),
        currentEpoch: feePool.value.current_epoch_number,
      };
    } else if (errorCode(feePool.reason) === 'RPC_NOT_SUPPORTED') {
      this.#feePool = { status: 'not-available', message: NOT_AVAILABLE };
      unsupported = true;
    } else if (this.#feePool.status !== 'ok') {
      this.#feePool = { status: 'unknown', message: 'the daemon did not answer' };
    }
    if (heat.status === 'fulfilled') {
      this.#heat = summariseDeposits(heat.value);
    } else if (errorCode(heat.reason) === 'RPC_NOT_SUPPORTED') {
      this.#heat = { status: 'not-available', message: NOT_AVAILABLE };
      unsupported = true;
    } else if (this.#heat.status !== 'ok') {
      this.#heat = { status: 'unknown', message: 'the daemon did not answer' };
    }
    const supportedBoth = this.#feePool.status === 'ok' && this.#heat.status === 'ok';
    const delay = unsupported && !supportedBoth ? UNSUPPORTED_RECHECK_MS : this.#options.extrasRefreshMs;
    this.#extrasDelayMs = delay;
    this.#nextExtrasMs = clock() + delay;
  }

  async #loop(): Promise<void> {
    if (this.#stopped) return;
    this.#running = this.refresh();
    await this.#running;
    this.#running = null;
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#loop(), this.#options.refreshMs);
    this.#timer.unref();
  }
}
