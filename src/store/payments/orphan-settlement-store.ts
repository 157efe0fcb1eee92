import type { Redis } from 'ioredis';
import { defineScript, type ScriptRunner } from '../scripts/define-script.js';
import { createShareKeys, type ShareKeys } from '../shares/share-keys.js';
import { DEFAULT_HISTORY_MAX_LENGTH } from './balances-store.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';
import { PaymentStoreError, parseStoredAmount, refusalOf, runPaymentCommand } from './payment-store-error.js';
import { buildCreditBackClawbackCall, CREDIT_BACK_CLAWBACK_LUA } from './scripts/credit-back-clawback.js';
import {
  buildSettleOrphanedBlockCall,
  SETTLE_ORPHANED_BLOCK_LUA,
  type SettleOrphanedBlockRequest,
} from './scripts/settle-orphaned-block.js';

/** Where a block stands for the operator's settlement. */
export type OrphanSettlementState =
  /** No block record with that hash. */
  | 'unknown'
  /** Not a confirmed block flagged orphaned after credit (pending, orphaned, or credited and on the chain). */
  | 'not-flagged'
  | 'flagged'
  | 'settled';

/** One block's settlement-relevant state, read in one round trip (a preview; the scripts check again). */
export interface OrphanSettlementView {
  readonly hash: string;
  /** The block's height (0 when unknown). */
  readonly height: number;
  readonly state: OrphanSettlementState;
  readonly settlement: 'absorbed' | 'clawed-back' | null;
  /** A settled block a later reorg put back on the main chain. */
  readonly restoredAfterSettlement: boolean;
  readonly creditedBack: boolean;
  /** address -> what the block credited it (its credits record). */
  readonly credits: ReadonlyMap<string, bigint>;
  /** address -> the account's balance now. */
  readonly balances: ReadonlyMap<string, bigint>;
  /** address -> what the clawback debited it (empty unless clawed back). */
  readonly clawback: ReadonlyMap<string, bigint>;
}

export interface SettlementWriter {
  readonly fencingToken: string;
  readonly lockToken: string;
}

/**
 * The operator's settlement of credited blocks a deep reorg orphaned (`fuego-pool block settle`):
 * reads a block's credits and its accounts' balances for the preview, and runs settle_orphaned_block
 * and credit_back_clawback (payout scripts: the caller holds the payout lock).
 */
export class OrphanSettlementStore {
  readonly keys: PaymentKeys;
  readonly shareKeys: ShareKeys;
  readonly #redis: Redis;
  readonly #clock: () => number;
  readonly #historyMaxLength: number;
  readonly #settle: ScriptRunner;
  readonly #creditBack: ScriptRunner;

  constructor(
    opts: { readonly keyPrefix: string; readonly historyMaxLength?: number },
    modules: { readonly redis: Redis; readonly clock?: () => number },
  ) {
    this.keys = createPaymentKeys(opts.keyPrefix);
    this.shareKeys = createShareKeys(opts.keyPrefix);
    this.#redis = modules.redis;
    this.#clock = modules.clock ?? Date.now;
    this.#historyMaxLength = opts.historyMaxLength ?? DEFAULT_HISTORY_MAX_LENGTH;
    this.#settle = defineScript(modules.redis, 'fuegoPoolSettleOrphanedBlock', SETTLE_ORPHANED_BLOCK_LUA);
    this.#creditBack = defineScript(modules.redis, 'fuegoPoolCreditBackClawback', CREDIT_BACK_CLAWBACK_LUA);
  }

  async read(hash: string): Promise<OrphanSettlementView> {
    const [record, flagged, credits, clawback] = await runPaymentCommand('readOrphanSettlement', () =>
      Promise.all([
        this.#redis.hmget(
          this.shareKeys.block(hash),
          'status',
          'orphanedAfterCreditAtMs',
          'settlement',
          'restoredAfterSettlementAtMs',
          'creditedBackAtMs',
          'height',
        ),
        this.#redis.zscore(this.keys.blocksOrphanedAfterCredit, hash),
        this.#redis.hgetall(this.keys.blockCredits(hash)),
        this.#redis.hgetall(this.keys.blockClawback(hash)),
      ]),
    );
    const [status, flaggedAtMs, settlement, restoredAtMs, creditedBackAtMs, height] = record;
    const amounts = (fields: Record<string, string>, what: string) =>
      new Map(Object.entries(fields).map(([address, value]) => [address, parseStoredAmount(value, what)]));
    const creditMap = amounts(credits, `credit of block ${hash}`);
    const addresses = [...creditMap.keys()];
    const read = await runPaymentCommand('readOrphanSettlement', () =>
      Promise.all(addresses.map((address) => this.#redis.hget(this.keys.balance(address), 'balance'))),
    );
    const balances = new Map(
      addresses.map((address, i) => [address, parseStoredAmount(read[i], `balance of ${address}`)]),
    );
    const state: OrphanSettlementState =
      status === null
        ? 'unknown'
        : settlement !== null
          ? 'settled'
          : status === 'confirmed' && flaggedAtMs !== null && flagged !== null
            ? 'flagged'
            : 'not-flagged';
    return {
      hash,
      height: height === null ? 0 : Number(parseStoredAmount(height, `height of block ${hash}`)),
      state,
      settlement: settlement === 'absorbed' || settlement === 'clawed-back' ? settlement : null,
      restoredAfterSettlement: restoredAtMs !== null,
      creditedBack: creditedBackAtMs !== null,
      credits: creditMap,
      balances,
      clawback: amounts(clawback, `clawback of block ${hash}`),
    };
  }

  /** settle_orphaned_block; its refusals are thrown (PaymentStoreError) and nothing changed. */
  async settle(
    writer: SettlementWriter,
    request: SettleOrphanedBlockRequest,
  ): Promise<{ clawedBackAtomic: bigint; uncollectedAtomic: bigint }> {
    const call = buildSettleOrphanedBlockCall(this.#scriptKeys(), writer, request, this.#settings());
    const reply = await this.#run('settle_orphaned_block', this.#settle, call);
    return {
      clawedBackAtomic: parseStoredAmount(String(reply[1]), 'clawedBackAtomic'),
      uncollectedAtomic: parseStoredAmount(String(reply[2]), 'uncollectedAtomic'),
    };
  }

  /** credit_back_clawback: gives back exactly what `clawback` (the block's clawback record) says. */
  async creditBack(
    writer: SettlementWriter,
    request: { readonly hash: string; readonly clawback: ReadonlyMap<string, bigint>; readonly note: string },
  ): Promise<bigint> {
    const call = buildCreditBackClawbackCall(this.#scriptKeys(), writer, request, this.#settings());
    const reply = await this.#run('credit_back_clawback', this.#creditBack, call);
    return parseStoredAmount(String(reply[1]), 'clawedBackAtomic');
  }

  #scriptKeys() {
    return { payments: this.keys, shares: this.shareKeys };
  }

  #settings() {
    return { nowMs: this.#clock(), historyMaxLength: this.#historyMaxLength };
  }

  async #run(operation: string, script: ScriptRunner, call: Parameters<ScriptRunner>[0]): Promise<unknown[]> {
    const reply = await runPaymentCommand(operation, () => script(call));
    const refusal = refusalOf(reply, operation);
    if (refusal) throw refusal;
    if (!Array.isArray(reply) || reply[0] !== 1) {
      throw new PaymentStoreError('BLOCK_STATE', `${operation} gave an unexpected reply`, { operation });
    }
    return reply;
  }
}
