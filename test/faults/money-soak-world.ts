import type { Redis } from 'ioredis';
import type { ChainBlock } from '../../src/devnet/chain/chain-state.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import { keyPairFromSeed } from '../../src/devnet/wallet/ed25519-keys.js';
import type { FaultPoints } from '../../src/fault-points.js';
import { encodeAddress } from '../../src/fuego/address.js';
import type { PayoutStep } from '../../src/leader/payouts/batch-sender.js';
import type { BlockUnlocker } from '../../src/leader/unlocker/block-unlocker.js';
import type { PaymentSchemeName } from '../../src/pool/schemes/payment-scheme-name.js';
import type { DaemonClient } from '../../src/rpc/daemon-client.js';
import type { WalletClient } from '../../src/rpc/wallet-client.js';
import { RedisBalances } from '../../src/store/payments/balances-store.js';
import { PayoutStore } from '../../src/store/payments/payout-store.js';
import { RedisShareLedger } from '../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../helpers/config-defaults.js';
import { captureLogs, type LogCapture } from '../helpers/log-capture.js';
import { payoutRunnerFor } from '../leader/payouts/payout-runner-for.js';
import { minerAddress } from '../leader/payouts/payout-test-kit.js';
import { unlockerOn } from '../leader/unlocker/unlocker-kit.js';
import { makeCandidate, makeShare, silentLogger } from '../store/store-fixtures.js';

/** Blocks on top of a pool block before the unlocker decides it (kept small: the soak mines them). */
export const SOAK_CONFIRM_DEPTH = 4;
/** After crediting, how much deeper the reorg watch still checks a block. */
export const SOAK_REORG_WATCH_BLOCKS = 8;
/**
 * The deepest reorg the steps make: deeper than confirmDepth (a credited block can be taken), never
 * past the reorg watch (which flags such a block; below it only the periodic audit looks).
 */
export const SOAK_MAX_REORG_DEPTH = SOAK_CONFIRM_DEPTH + SOAK_REORG_WATCH_BLOCKS - 2;
export const COIN = 10_000_000n;
/** The pool's payout minimum in the soak: low, so that most passes pay someone. */
export const SOAK_MIN_PAYOUT = COIN / 10n;

/** How far a rescanning wallet says it trails its daemon: past maxWalletLagBlocks (2), so not synced. */
const RESCAN_LAG_BLOCKS = 10;

/** The wallet as a rescanning walletd shows itself: its getStatus blockCount behind its daemon's. */
function rescanning(wallet: WalletClient): WalletClient {
  return new Proxy(wallet, {
    get(target, property) {
      if (property === 'getStatus') {
        return async () => {
          const status = await target.getStatus();
          return { ...status, blockCount: Math.max(1, status.knownBlockCount - RESCAN_LAG_BLOCKS) };
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Mulberry32: a small seeded PRNG (the same seed, the same run). */
export class SoakRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }
}

/** The devnet, Redis and clients one soak file shares between its seeds. */
export interface SoakShared {
  readonly redis: Redis;
  readonly devnet: Devnet;
  readonly daemon: DaemonClient;
  readonly wallet: WalletClient;
  /** Stops Redis (its AOF is fsynced on every write: nothing is lost). */
  stopRedis(): Promise<void>;
  /** Starts it again on the same port and AOF, and waits until the client is connected again. */
  startRedis(): Promise<void>;
}

/** One step kind: how often the PRNG picks it, and what it does (a line for the step list). */
export interface StepKind {
  readonly name: string;
  readonly weight: number;
  run(pool: SoakPool, random: SoakRandom): Promise<string>;
}

/** What a pass's runner is built with besides the pool's stores: another connection, crash points. */
export interface SoakRunnerParts {
  /** The connection the runner's stores use (a crashing one, say); the shared one without it. */
  readonly redis?: Redis;
  readonly faults?: FaultPoints<PayoutStep>;
}

/** Where the rest of the network's blocks go: an address of nobody the soak checks. */
export function networkMinerAddress(): string {
  const keys = keyPairFromSeed(new TextEncoder().encode('soak/network-miner'));
  return encodeAddress({ spendPublicKey: keys.publicKey, viewPublicKey: keys.publicKey });
}

/**
 * One seed's pool: its own key prefix (and so its own pool id in batch tags) and miners on the
 * shared devnet and Redis, with the pool's real share ledger, unlocker and payout runner, and a
 * clock the steps move (the runner waits for it before rolling back an unresolved send).
 */
export class SoakPool {
  readonly miners: string[];
  readonly ledger: RedisShareLedger;
  /** The leader's unlocker; a crash step replaces it with a fresh one (a restarted leader). */
  unlocker: BlockUnlocker;
  readonly balances: RedisBalances;
  readonly store: PayoutStore;
  /** Hashes of every block the pool recorded as its own, oldest first. */
  readonly poolBlocks: string[] = [];
  /** The main chain's height when the seed began: nothing below pays its miners. */
  readonly startHeight: number;
  nowMs = 1_800_000_000_000;
  /** What the operator's balance adjustments applied, in all (signed). */
  adjustedAtomic = 0n;
  /** What the operator took back from each miner by hand (debits, clawbacks), as a positive sum. */
  readonly debitedAtomic = new Map<string, bigint>();
  /** Whether a step holds the wallet's scan (the devnet does not say). */
  scanHeld = false;
  /** PROP for one seed in three, else PPLNS; solo shares and blocks come with either. */
  readonly scheme: PaymentSchemeName;
  /**
   * Whether the runner checks fuegod before a send (as the leader's does), in three seeds of four;
   * without it a daemon behind its peers is met as walletd's refusal.
   */
  readonly runnerChecksDaemon: boolean;
  /** Transactions the wallet forgot (it is rescanning) until a `rescan` step ends its rescan. */
  readonly forgotten = new Set<string>();
  /** A crash a step armed for the next payout pass that reaches a batch's step (`nth` time). */
  armedPayoutCrash: { readonly point: PayoutStep; readonly nth: number } | null = null;
  /** Steps left until fuegod is reachable again (0: it is up). */
  daemonDownSteps = 0;
  /**
   * The leader's log at info level (its payout passes'), kept as the operator's log file is: whom
   * a batch paid is there (`payout batch sending`) when Redis and walletd both lost it.
   */
  readonly logs: LogCapture = captureLogs('info');
  /** A `lost-batch` step armed for the next pass that sends: Redis loses it (walletd too if `forget`). */
  armedLoss: { readonly forget: boolean } | null = null;
  /** Batches Redis lost after the wallet sent them (a `lost-batch` step), with their transaction. */
  readonly lostBatches = new Map<string, string>();

  constructor(
    readonly shared: SoakShared,
    readonly keyPrefix: string,
    seed: number,
  ) {
    const { redis } = shared;
    this.scheme = seed % 3 === 1 ? 'prop' : 'pplns';
    this.runnerChecksDaemon = seed % 4 !== 3;
    this.miners = [1, 2, 3, 4].map((n) => minerAddress(`soak-${seed}-${keyPrefix}-${n}`));
    this.ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    this.unlocker = this.freshUnlocker(redis);
    this.balances = new RedisBalances({ keyPrefix }, { redis });
    this.store = new PayoutStore({ keyPrefix }, { redis });
    this.startHeight = shared.devnet.chain.height;
  }

  /** Records an operator's balance change of `address` (only its debits count, see debitedAtomic). */
  operatorChanged(address: string, changeAtomic: bigint): void {
    if (changeAtomic < 0n)
      this.debitedAtomic.set(address, (this.debitedAtomic.get(address) ?? 0n) - changeAtomic);
  }

  get devnet(): Devnet {
    return this.shared.devnet;
  }

  /** An unlocker as the leader builds it, on `redis` (the shared connection or a crashing one). */
  freshUnlocker(redis: Redis): BlockUnlocker {
    return unlockerOn(
      redis,
      this.keyPrefix,
      {
        scheme: this.scheme,
        confirmDepth: SOAK_CONFIRM_DEPTH,
        reorgWatchBlocks: SOAK_REORG_WATCH_BLOCKS,
        // As in production (where it is on by default): a block replaced while no unlock ran
        // until it was past the watch is found by the audit, which runs when the clock says so.
        reorgAuditBlocks: 500,
        reorgAuditIntervalMs: 3_600_000,
      },
      { daemon: this.shared.daemon, logger: silentLogger, clock: () => this.nowMs },
    );
  }

  /** A fresh runner per pass, as a leader restart would build it (same options, same stores). */
  runner(parts: SoakRunnerParts = {}) {
    const { daemon } = this.shared;
    const wallet = this.forgotten.size > 0 ? rescanning(this.shared.wallet) : this.shared.wallet;
    return payoutRunnerFor(
      parts.redis ?? this.shared.redis,
      this.keyPrefix,
      {
        wallet,
        logger: this.logs.logger,
        clock: () => this.nowMs,
        ...(this.runnerChecksDaemon ? { daemon } : {}),
        ...(parts.faults ? { faults: parts.faults } : {}),
      },
      { minPayoutAtomic: SOAK_MIN_PAYOUT, maxTransfersPerTransaction: 2, feePaidBy: 'miners' },
    );
  }

  async recordShare(address: string, difficulty: number, solo = false): Promise<void> {
    const height = this.devnet.chain.height;
    await this.ledger.recordShare(makeShare({ address, difficulty, height, timestampMs: this.nowMs, solo }));
  }

  /** The pool's block: mined by the devnet to the pool wallet, recorded with its solving share. */
  async findBlock(finder: string, shareDifficulty: number, solo = false): Promise<ChainBlock> {
    const [block] = this.devnet.control.mineBlocks(1, this.devnet.walletAddress);
    const share = makeShare({
      address: finder,
      difficulty: shareDifficulty,
      height: block!.height,
      timestampMs: this.nowMs,
      solo,
    });
    await this.ledger.writeBlockCandidate(
      makeCandidate({
        hash: block!.id,
        height: block!.height,
        prevHash: this.devnet.chain.blockAt(block!.height - 1)!.id,
        networkDifficulty: this.devnet.chain.difficulty,
        share,
        timestampMs: this.nowMs,
      }),
    );
    this.poolBlocks.push(block!.id);
    return block!;
  }
}
