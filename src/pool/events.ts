import type { BlockRefusalReason } from '../model/block-refusal-reason.js';

/**
 * The pool's event bus: the pool core, the block unlocker and the payout runner publish what
 * happened; the live feed (and later webhooks) subscribe. In-process only: a deployment that
 * runs the API in another process relays these over Redis pub/sub (src/cluster/redis-event-relay.ts).
 *
 * Payloads carry no miner IPs and only public facts (heights, hashes, amounts, addresses).
 * Amounts are atomic units as bigint; listeners format them.
 */

export interface PoolEventMap {
  /** The network tip moved (seen by the template source or the API's daemon poller). */
  readonly 'network-block': {
    readonly height: number;
    readonly hash: string;
    readonly difficulty: bigint;
    readonly timestampMs: number;
  };
  /**
   * The pool submitted a block candidate the daemon accepted (or answered ambiguously), or one it
   * refused was found on the chain after all and promoted (by the stratum side's diagnosis or the
   * leader's unlocker, whichever promoted it). At least once per block: a block whose finder died
   * between its Redis write and this publish is published by the leader later
   * (leader/unannounced-blocks.ts), and one that died after it and before clearing its mark is
   * published twice, with the same payload: consumers deduplicate by `hash`.
   */
  readonly 'block-found': {
    readonly height: number;
    readonly hash: string;
    readonly finderAddress: string;
    readonly solo: boolean;
    /** When the block was found (a promoted block's find, not its promotion). */
    readonly timestampMs: number;
    /** true: submitblock refused it and it was found on the chain later; absent otherwise. */
    readonly foundAfterRefusal?: true;
  };
  /**
   * submitblock refused a block whose proof of work the pool verified, and the stratum side's
   * diagnosis has settled and is written to the block record (the block stays `rejected`). Once
   * per block. Not for `already-on-chain`: that block is promoted and announced as `block-found`
   * (foundAfterRefusal) instead. A refusal left `unknown` may still be promoted by the leader's
   * unlocker later, which then announces `block-found` with foundAfterRefusal: both are true.
   */
  readonly 'block-refused': {
    readonly height: number;
    readonly hash: string;
    readonly finderAddress: string;
    readonly solo: boolean;
    /** When the block was found (its submit). */
    readonly timestampMs: number;
    readonly reason: Exclude<BlockRefusalReason, 'already-on-chain'>;
    /** The diagnosis's likely cause (likelyCauseOf), as the refusal's log line gives it. */
    readonly likelyCause: string;
  };
  /** The unlocker saw the block reach the unlock depth on the main chain. */
  readonly 'block-confirmed': {
    readonly height: number;
    readonly hash: string;
    readonly rewardAtomic: bigint;
  };
  /** The unlocker saw another block at the height: the round's work went back to the pool. */
  readonly 'block-orphaned': { readonly height: number; readonly hash: string };
  /**
   * The unlocker's reorg watch found a block it had credited replaced at its height (a reorg
   * deeper than confirmDepth): the credits stand, for the operator to settle. Once per block.
   */
  readonly 'block-orphaned-after-credit': {
    readonly height: number;
    readonly hash: string;
    /** The reward its credits split (miners, fee address and the fee kept). */
    readonly rewardAtomic: bigint;
  };
  /**
   * The operator settled a block orphaned after credit (`fuego-pool block settle HASH --absorb |
   * --clawback`), or credited back a clawed-back one a later reorg restored (`--credit-back`).
   * Published by that command through the relay; a dry run publishes nothing.
   */
  readonly 'block-orphan-settled': {
    readonly height: number;
    readonly hash: string;
    /** absorbed: the pool bears the loss; clawed-back: its credits debited; credited-back: a clawback given back. */
    readonly settlement: 'absorbed' | 'clawed-back' | 'credited-back';
    /** The accounts the block credited. */
    readonly accounts: number;
    /** What moved: clawed back from, or credited back to, the accounts (0 when absorbed). */
    readonly changeAtomic: bigint;
    /** What the pool does not get back of the credits (absorbed, or paid out already); 0 for a credit back. */
    readonly uncollectedAtomic: bigint;
    /** The operator's note. */
    readonly note: string;
    readonly timestampMs: number;
  };
  /**
   * The reorg watch found a block orphaned after credit back on the main chain (a later reorg) and
   * noted it: `unflagged` (not settled: a credited block again), `absorbed` (the loss did not
   * happen), `clawed-back` (its miners are owed the clawback: `fuego-pool block settle HASH
   * --credit-back`). Once per restore.
   */
  readonly 'block-orphan-restored': {
    readonly height: number;
    readonly hash: string;
    readonly rewardAtomic: bigint;
    readonly outcome: 'unflagged' | 'absorbed' | 'clawed-back';
    readonly timestampMs: number;
  };
  /**
   * A settled block a later reorg had restored (`block-orphan-restored`) is replaced again, before
   * any credit back, and its restore undone: `absorbed` (the loss stands again), `clawed-back` (no
   * credit back is owed any more: `--credit-back` is refused). Once per undoing; a block credited
   * back since is flagged again instead (`block-orphaned-after-credit`).
   */
  readonly 'block-orphan-restore-undone': {
    readonly height: number;
    readonly hash: string;
    readonly rewardAtomic: bigint;
    readonly outcome: 'absorbed' | 'clawed-back';
    readonly timestampMs: number;
  };
  /**
   * A block decided orphaned that a reorg deeper than confirmDepth put back on the main chain, and
   * that the ledger does not credit: `round-merged` (PROP merged its round into the next one, whose
   * block paid those shares: its reward is pool surplus) or `no-window` (no PPLNS window was kept:
   * an older version orphaned it; its miners are owed its reward, credited by hand). Its reward is
   * in the pool's wallet. Once per block, across restarts and failovers.
   */
  readonly 'block-orphan-back-uncredited': {
    readonly height: number;
    readonly hash: string;
    readonly rewardAtomic: bigint;
    readonly reason: 'round-merged' | 'no-window';
    readonly timestampMs: number;
  };
  /** A payout batch was refused by the wallet before broadcast and rolled back (balances restored). */
  readonly 'payment-failed': {
    readonly batchId: string;
    readonly recipients: number;
    readonly amountAtomic: bigint;
    /** The runner's note (the wallet's refusal); no miner data. */
    readonly reason: string;
    readonly timestampMs: number;
  };
  /**
   * The payout watch found that the wallet has no record of a sent batch's transaction (walletd
   * answers 29 "Object not found": reset, or restored from a backup older than the send) and
   * marked the batch wallet-missing. Its miners were debited and the transaction may well be on
   * chain or in the network's pool: nothing is refunded on that alone; the operator settles it
   * (`fuego-pool payout resolve`) unless the wallet finds it again. Once per batch.
   */
  readonly 'payout-unknown-to-wallet': {
    readonly batchId: string;
    readonly transactionHash: string;
    readonly recipients: number;
    readonly amountAtomic: bigint;
    /** When the batch was recorded sent. */
    readonly sentAtMs: number;
    readonly timestampMs: number;
  };
  /**
   * The operator settled a payout-unknown-to-wallet batch (`fuego-pool payout resolve TXHASH
   * --paid | --refund`, on fuegod's word). Published by that command through the relay.
   */
  readonly 'payout-unknown-to-wallet-resolved': {
    readonly batchId: string;
    readonly transactionHash: string;
    readonly recipients: number;
    readonly amountAtomic: bigint;
    /** paid: recorded confirmed in `blockHeight`; refunded: its miners were credited back. */
    readonly resolution: 'paid' | 'refunded';
    readonly blockHeight: number | null;
    /** The operator's note. */
    readonly note: string;
    readonly timestampMs: number;
  };
  /**
   * A sent batch's transaction is not mined UNMINED_AFTER_MS (6 h) after its send, and fuegod said
   * where it is (the leader's payout pass asked it): `nowhere` (walletd holds it unconfirmed for
   * good: restart walletd, which cancels it, and the pool credits the miners back), `in-pool` (it
   * may be mined yet) or `in-block` (walletd has not seen the block). Once per batch, whatever
   * restarts or fails over; not while fuegod cannot answer (a later pass asks again).
   */
  readonly 'payout-unmined': {
    readonly batchId: string;
    readonly transactionHash: string;
    readonly recipients: number;
    readonly amountAtomic: bigint;
    /** When the batch was recorded sent. */
    readonly sentAtMs: number;
    /** How long after its send fuegod was asked. */
    readonly ageMs: number;
    readonly sighting: 'in-block' | 'in-pool' | 'nowhere';
    /** The block fuegod has it in (`in-block`), else null. */
    readonly blockHeight: number | null;
    /** What to do, as `fuego-pool report` says it. */
    readonly advice: string;
    readonly timestampMs: number;
  };
  /** A payout batch's transaction was accepted by the wallet. */
  readonly 'payment-sent': {
    readonly batchId: string;
    readonly transactionHash: string;
    readonly recipients: number;
    readonly amountAtomic: bigint;
    readonly feeAtomic: bigint;
    readonly timestampMs: number;
  };
  /**
   * A worker that had shares sent none for `offlineAfterMs` (the leader's watch, once per
   * transition: again only after it came back and stopped again). Not relayed between processes:
   * it is published where the notifier runs.
   */
  readonly 'worker-offline': {
    readonly address: string;
    readonly worker: string;
    readonly lastShareMs: number;
    readonly offlineAfterMs: number;
  };
}

export type PoolEventName = keyof PoolEventMap;
export type PoolEventListener<K extends PoolEventName> = (payload: PoolEventMap[K]) => void;

export interface PoolEventBus {
  publish<K extends PoolEventName>(name: K, payload: PoolEventMap[K]): void;
  /** Returns the unsubscribe function. */
  subscribe<K extends PoolEventName>(name: K, listener: PoolEventListener<K>): () => void;
}

/**
 * Synchronous in-memory bus. A throwing listener is reported to `onListenerError` and does not
 * stop the others or the publisher (a broken feed must never fail a share or a payout).
 */
export function createPoolEventBus(
  onListenerError: (error: unknown, name: PoolEventName) => void,
): PoolEventBus {
  const listeners = new Map<PoolEventName, Set<(payload: never) => void>>();
  return {
    publish(name, payload) {
      for (const listener of listeners.get(name) ?? []) {
        try {
          (listener as (p: typeof payload) => void)(payload);
        } catch (error) {
          onListenerError(error, name);
        }
      }
    },
    subscribe(name, listener) {
      let set = listeners.get(name);
      if (set === undefined) {
        set = new Set();
        listeners.set(name, set);
      }
      const entry = listener as (payload: never) => void;
      set.add(entry);
      return () => {
        set.delete(entry);
      };
    },
  };
}
