import type { Redis } from 'ioredis';
import type {
  AfterCreditState,
  CreditedBlock,
  OrphanedBlock,
  UncreditedBackOnChainBlock,
} from '../../model/blocks/unlock-ledger.js';
import { createShareKeys, type ShareKeys } from '../shares/share-keys.js';
import { execStorePipeline, runStoreCommand, StoreError } from '../store-error.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';

/** A credited block a later reorg replaced at its height, as the money report shows it. */
export interface OrphanedAfterCreditBlock extends Omit<CreditedBlock, 'state'> {
  /** What its credits added to balances (the miners' and the fee address's), from its credits record. */
  readonly creditedAtomic: bigint;
  /** The main chain's block at its height when the watch saw it replaced. */
  readonly observedHash: string;
  readonly flaggedAtMs: number;
}

/** A flagged block the operator settled (`fuego-pool block settle`), as the report shows it. */
export interface SettledOrphanBlock extends OrphanedAfterCreditBlock {
  readonly settlement: 'absorbed' | 'clawed-back';
  readonly settledAtMs: number;
  readonly settleNote: string;
  /** What the clawback took back from balances (0 when absorbed). */
  readonly clawedBackAtomic: bigint;
  /** The rest of the credits, the pool's loss: paid out or spent already, or all of it when absorbed. */
  readonly uncollectedAtomic: bigint;
  /** When a later reorg put it back on the main chain after its settlement; null if not. */
  readonly restoredAtMs: number | null;
  /** When the operator credited the clawback back after that restore; null if not. */
  readonly creditedBackAtMs: number | null;
}

/** The settled blocks, and the clawed-back ones restored and waiting for their credit back. */
export interface OrphanSettlementCounts {
  readonly settled: number;
  readonly restoredAfterClawback: number;
}

/** Heights of a by-height ZSET read highest first: from `fromHeight` up to `toHeight` (none: no top). */
interface HeightRange {
  readonly fromHeight: number;
  readonly toHeight?: number;
  readonly offset?: number;
  readonly limit: number;
}

const AMOUNT = /^\d{1,20}$/;
/** The block record's settlement fields, in the order settledOf reads them. */
const SETTLEMENT_FIELDS = [
  'settlement',
  'settledAtMs',
  'settleNote',
  'clawedBackAtomic',
  'uncollectedAtomic',
  'restoredAfterSettlementAtMs',
  'creditedBackAtMs',
] as const;

function amountOf(value: string | null | undefined, what: string, hash: string): bigint {
  if (value === null || value === undefined || !AMOUNT.test(value)) {
    throw new StoreError('CORRUPT_RECORD', `corrupt ${what}`, { hash, value });
  }
  return BigInt(value);
}

/**
 * Reads the confirmed blocks the unlocker's reorg watch works on (`<p>:blocks:confirmed` by
 * height) and the ones it flagged (`<p>:blocks:orphaned-after-credit`), the orphaned blocks its
 * orphan watch checks (`<p>:blocks:orphaned`) and the ones it noted back on chain and not credited
 * (`<p>:blocks:orphaned-back-on-chain`). Bounded: a ZSET range with a limit and one pipelined read
 * per listed block.
 */
export class CreditedBlocksReader {
  readonly #redis: Redis;
  readonly #keys: PaymentKeys;
  readonly #shareKeys: ShareKeys;

  constructor(opts: { readonly keyPrefix: string }, modules: { readonly redis: Redis }) {
    this.#redis = modules.redis;
    this.#keys = createPaymentKeys(opts.keyPrefix);
    this.#shareKeys = createShareKeys(opts.keyPrefix);
  }

  /** Confirmed blocks at `fromHeight` and above, with their state after credit, highest first, at most `limit`. */
  async listCreditedFrom(fromHeight: number, limit: number): Promise<CreditedBlock[]> {
    return this.#credited('listCreditedFrom', { fromHeight, limit });
  }

  /**
   * Confirmed blocks from `fromHeight` to `toHeight` (both included), with their state after credit,
   * highest first: `limit` of them after skipping the first `offset` (pages of the reorg audit).
   */
  async listCreditedBetween(
    fromHeight: number,
    toHeight: number,
    page: { readonly offset: number; readonly limit: number },
  ): Promise<CreditedBlock[]> {
    return this.#credited('listCreditedBetween', { fromHeight, toHeight, ...page });
  }

  async #credited(operation: string, range: HeightRange): Promise<CreditedBlock[]> {
    const listed = await this.#listed(operation, this.#keys.blocksConfirmed, range);
    const fields = [
      'reward',
      'orphanedAfterCreditAtMs',
      'settledAtMs',
      'restoredAfterSettlementAtMs',
    ] as const;
    const records = await this.#records(operation, listed, fields);
    return listed.map(({ hash, height }, index) => {
      const [reward, flaggedAtMs, settledAtMs, restoredAtMs] = records[index]!;
      const state: AfterCreditState =
        flaggedAtMs === null
          ? 'credited'
          : settledAtMs === null
            ? 'flagged'
            : restoredAtMs === null
              ? 'settled'
              : 'settled-restored';
      return { hash, height, rewardAtomic: amountOf(reward, 'confirmed block reward', hash), state };
    });
  }

  /**
   * Blocks decided orphaned from `fromHeight` up to `toHeight` (both included), highest first, at
   * most `limit`, each with whether it was noted back on the main chain and not credited.
   */
  async listOrphanedBetween(fromHeight: number, toHeight: number, limit: number): Promise<OrphanedBlock[]> {
    const operation = 'listOrphanedBetween';
    const listed = await this.#listed(operation, this.#keys.blocksOrphaned, { fromHeight, toHeight, limit });
    // An older version noted such a block with backOnChainAtMs alone: not noted as now.
    const records = await this.#records(operation, listed, ['backOnChainReason'] as const);
    return listed.map(({ hash, height }, index) => ({
      hash,
      height,
      notedBackOnChain: records[index]![0] !== null,
    }));
  }

  /**
   * Orphaned blocks a deeper reorg put back on the main chain that the ledger does not credit
   * (their reward in the wallet, owed to nobody), highest first, at most `limit`.
   */
  async listUncreditedBackOnChain(limit: number): Promise<UncreditedBackOnChainBlock[]> {
    const operation = 'listUncreditedBackOnChain';
    const listed = await this.#listed(operation, this.#keys.blocksOrphanedBackOnChain, {
      fromHeight: 0,
      limit,
    });
    const fields = ['backOnChainReward', 'backOnChainReason', 'backOnChainAtMs'] as const;
    const records = await this.#records(operation, listed, fields);
    return listed.map(({ hash, height }, index) => {
      const [reward, reason, atMs] = records[index]!;
      if (reason !== 'round-merged' && reason !== 'no-window') {
        throw new StoreError('CORRUPT_RECORD', 'corrupt backOnChainReason', { hash, reason });
      }
      return {
        hash,
        height,
        rewardAtomic: amountOf(reward, 'backOnChainReward', hash),
        reason,
        backOnChainAtMs: Number(amountOf(atMs, 'backOnChainAtMs', hash)),
      };
    });
  }

  /** The flagged blocks not settled, highest first, at most `limit`, each with what it credited. */
  async listOrphanedAfterCredit(limit: number): Promise<OrphanedAfterCreditBlock[]> {
    const listed = await this.#listed('listOrphanedAfterCredit', this.#keys.blocksOrphanedAfterCredit, {
      fromHeight: 0,
      limit,
    });
    return (await this.#orphans('listOrphanedAfterCredit', listed)).map(({ orphan }) => orphan);
  }

  /** The flagged blocks the operator settled, highest first, at most `limit`. */
  async listSettledOrphans(limit: number): Promise<SettledOrphanBlock[]> {
    return this.#settled('listSettledOrphans', this.#keys.blocksOrphanSettled, limit);
  }

  /** Clawed-back blocks a later reorg put back on the main chain, not credited back yet, highest first. */
  async listRestoredAfterClawback(limit: number): Promise<SettledOrphanBlock[]> {
    return this.#settled('listRestoredAfterClawback', this.#keys.blocksRestoredAfterClawback, limit);
  }

  async #settled(operation: string, key: string, limit: number): Promise<SettledOrphanBlock[]> {
    const listed = await this.#listed(operation, key, { fromHeight: 0, limit });
    return (await this.#orphans(operation, listed)).map(({ orphan, fields }) => settledOf(orphan, fields));
  }

  /** Each listed block's orphan view, with the settlement fields as read. */
  async #orphans(
    operation: string,
    listed: readonly { hash: string; height: number }[],
  ): Promise<{ orphan: OrphanedAfterCreditBlock; fields: (string | null)[] }[]> {
    const fields = ['reward', 'observedHash', 'orphanedAfterCreditAtMs', ...SETTLEMENT_FIELDS] as const;
    const records = await this.#records(operation, listed, fields);
    const credits = this.#redis.pipeline();
    for (const { hash } of listed) credits.hvals(this.#keys.blockCredits(hash));
    const creditValues =
      listed.length === 0 ? [] : ((await execStorePipeline(operation, credits)) as string[][]);
    return listed.map(({ hash, height }, index) => {
      const [reward, observedHash, flaggedAtMs, ...rest] = records[index]!;
      return {
        orphan: {
          hash,
          height,
          rewardAtomic: amountOf(reward, 'confirmed block reward', hash),
          creditedAtomic: creditValues[index]!.reduce(
            (sum, value) => sum + amountOf(value, 'block credit', hash),
            0n,
          ),
          observedHash: observedHash ?? '',
          flaggedAtMs: Number(amountOf(flaggedAtMs, 'orphanedAfterCreditAtMs', hash)),
        },
        fields: rest,
      };
    });
  }

  /** How many blocks the watch flagged (one ZCARD: cheap enough for every /metrics scrape). */
  async countOrphanedAfterCredit(): Promise<number> {
    return runStoreCommand('countOrphanedAfterCredit', () =>
      this.#redis.zcard(this.#keys.blocksOrphanedAfterCredit),
    );
  }

  /**
   * How many flagged blocks the operator settled, and how many clawed-back ones a later reorg
   * restored wait for their credit back (two ZCARDs in one round trip: cheap for every scrape).
   */
  async countOrphanSettlements(): Promise<OrphanSettlementCounts> {
    const pipeline = this.#redis.pipeline();
    pipeline.zcard(this.#keys.blocksOrphanSettled);
    pipeline.zcard(this.#keys.blocksRestoredAfterClawback);
    const [settled, restoredAfterClawback] = (await execStorePipeline(
      'countOrphanSettlements',
      pipeline,
    )) as number[];
    return { settled: settled ?? 0, restoredAfterClawback: restoredAfterClawback ?? 0 };
  }

  async #listed(
    operation: string,
    key: string,
    range: HeightRange,
  ): Promise<{ hash: string; height: number }[]> {
    const { fromHeight, toHeight, offset = 0, limit } = range;
    const max = toHeight === undefined ? '+inf' : toHeight;
    if (toHeight !== undefined && toHeight < Math.max(0, fromHeight)) return [];
    const flat = await runStoreCommand(operation, () =>
      this.#redis.zrevrangebyscore(key, max, Math.max(0, fromHeight), 'WITHSCORES', 'LIMIT', offset, limit),
    );
    const listed: { hash: string; height: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) listed.push({ hash: flat[i]!, height: Number(flat[i + 1]) });
    return listed;
  }

  async #records<const F extends readonly string[]>(
    operation: string,
    listed: readonly { hash: string }[],
    fields: F,
  ): Promise<(string | null)[][]> {
    if (listed.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const { hash } of listed) pipeline.hmget(this.#shareKeys.block(hash), ...fields);
    return (await execStorePipeline(operation, pipeline)) as (string | null)[][];
  }
}

/** A settled block's view from its orphan view and its SETTLEMENT_FIELDS as read. */
function settledOf(orphan: OrphanedAfterCreditBlock, fields: readonly (string | null)[]): SettledOrphanBlock {
  const [settlement, settledAtMs, settleNote, clawedBack, uncollected, restoredAtMs, creditedBackAtMs] =
    fields;
  const { hash } = orphan;
  if (settlement !== 'absorbed' && settlement !== 'clawed-back') {
    throw new StoreError('CORRUPT_RECORD', 'corrupt settlement', { hash, settlement });
  }
  const optionalMs = (value: string | null | undefined, what: string): number | null =>
    value === null || value === undefined ? null : Number(amountOf(value, what, hash));
  return {
    ...orphan,
    settlement,
    settledAtMs: Number(amountOf(settledAtMs, 'settledAtMs', hash)),
    settleNote: settleNote ?? '',
    clawedBackAtomic: amountOf(clawedBack, 'clawedBackAtomic', hash),
    uncollectedAtomic: amountOf(uncollected, 'uncollectedAtomic', hash),
    restoredAtMs: optionalMs(restoredAtMs, 'restoredAfterSettlementAtMs'),
    creditedBackAtMs: optionalMs(creditedBackAtMs, 'creditedBackAtMs'),
  };
}
