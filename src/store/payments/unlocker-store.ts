import type { Redis } from 'ioredis';
import type { CandidatePage, StoredBlockCandidate } from '../../model/blocks/stored-block.js';
import type {
  BlockWindowLedger,
  ClaimReorgAuditRequest,
  CreditBlockRequest,
  CreditedBlock,
  CreditOutcome,
  FixBlockWindowRequest,
  FlagOrphanedAfterCreditRequest,
  NoteRefusalOffChainRequest,
  NoteReorphanedBlockRequest,
  NoteRestoredBlockRequest,
  ObserveBlockRequest,
  OrphanBlockRequest,
  OrphanedBlock,
  PromoteRefusedBlockRequest,
  ReinstateOrphanedBlockRequest,
  ReinstateOutcome,
  ReorphanedOutcome,
  RestoredOutcome,
  UnlockLedger,
} from '../../model/blocks/unlock-ledger.js';
import { defineScript, type ScriptCall, type ScriptRunner } from '../scripts/define-script.js';
import { RedisLedgerReader, type ShareWindow } from '../shares/ledger-reader.js';
import { createShareKeys, type ShareKeys } from '../shares/share-keys.js';
import { StoreError, toStoreError } from '../store-error.js';
import { DEFAULT_HISTORY_MAX_LENGTH } from './balances-store.js';
import { CreditedBlocksReader } from './credited-blocks-reader.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';
import { PaymentStoreError, refusalOf } from './payment-store-error.js';
import { buildClaimReorgAuditCall, CLAIM_REORG_AUDIT_LUA } from './scripts/claim-reorg-audit.js';
import { buildCreditBlockCall, CREDIT_BLOCK_LUA } from './scripts/credit-block.js';
import { buildFixBlockWindowCall, FIX_BLOCK_WINDOW_LUA } from './scripts/fix-block-window.js';
import {
  buildFlagOrphanedAfterCreditCall,
  FLAG_ORPHANED_AFTER_CREDIT_LUA,
} from './scripts/flag-orphaned-after-credit.js';
import {
  buildNoteRefusalOffChainCall,
  NOTE_REFUSAL_OFF_CHAIN_LUA,
} from './scripts/note-refusal-off-chain.js';
import { buildNoteReorphanedBlockCall, NOTE_REORPHANED_BLOCK_LUA } from './scripts/note-reorphaned-block.js';
import { buildNoteRestoredBlockCall, NOTE_RESTORED_BLOCK_LUA } from './scripts/note-restored-block.js';
import { buildObserveBlockCall, OBSERVE_BLOCK_LUA } from './scripts/observe-block.js';
import { buildOrphanBlockCall, ORPHAN_BLOCK_LUA } from './scripts/orphan-block.js';
import { buildPromoteRefusedBlockCall, PROMOTE_REFUSED_BLOCK_LUA } from './scripts/promote-refused-block.js';
import {
  buildReinstateOrphanedBlockCall,
  REINSTATE_ORPHANED_BLOCK_LUA,
} from './scripts/reinstate-orphaned-block.js';

export interface UnlockerStoreOptions {
  readonly keyPrefix: string;
  readonly historyMaxLength?: number;
}

/**
 * The unlocker's ledger on Redis: its writes (fix a found block's window, credit a confirmed block,
 * orphan one, note a pending one's depth, promote a refused block found on the chain or note one
 * found off it, flag a credited one a deep reorg replaced, or unflag it when a later reorg
 * restores it, follow a settled one restored and replaced again, and keep when the reorg audit
 * last began) and the reads its decisions need (through the ledger reader and the credited blocks
 * reader).
 */
export class UnlockerStore implements UnlockLedger, BlockWindowLedger {
  readonly keys: PaymentKeys;
  readonly shareKeys: ShareKeys;
  readonly #scriptKeys: { readonly payments: PaymentKeys; readonly shares: ShareKeys };
  readonly #reader: RedisLedgerReader;
  readonly #credited: CreditedBlocksReader;
  readonly #clock: () => number;
  readonly #historyMaxLength: number;
  readonly #credit: ScriptRunner;
  readonly #orphan: ScriptRunner;
  readonly #observe: ScriptRunner;
  readonly #fixWindow: ScriptRunner;
  readonly #promoteRefused: ScriptRunner;
  readonly #noteOffChain: ScriptRunner;
  readonly #flagOrphaned: ScriptRunner;
  readonly #noteRestored: ScriptRunner;
  readonly #noteReorphaned: ScriptRunner;
  readonly #claimAudit: ScriptRunner;
  readonly #reinstate: ScriptRunner;

  constructor(opts: UnlockerStoreOptions, modules: { redis: Redis; clock?: () => number }) {
    this.keys = createPaymentKeys(opts.keyPrefix);
    this.shareKeys = createShareKeys(opts.keyPrefix);
    this.#reader = new RedisLedgerReader({ keyPrefix: opts.keyPrefix }, { redis: modules.redis });
    this.#credited = new CreditedBlocksReader({ keyPrefix: opts.keyPrefix }, { redis: modules.redis });
    this.#clock = modules.clock ?? Date.now;
    this.#historyMaxLength = opts.historyMaxLength ?? DEFAULT_HISTORY_MAX_LENGTH;
    this.#scriptKeys = { payments: this.keys, shares: this.shareKeys };
    this.#credit = defineScript(modules.redis, 'fuegoPoolCreditBlock', CREDIT_BLOCK_LUA);
    this.#orphan = defineScript(modules.redis, 'fuegoPoolOrphanBlock', ORPHAN_BLOCK_LUA);
    this.#observe = defineScript(modules.redis, 'fuegoPoolObserveBlock', OBSERVE_BLOCK_LUA);
    this.#fixWindow = defineScript(modules.redis, 'fuegoPoolFixBlockWindow', FIX_BLOCK_WINDOW_LUA);
    this.#promoteRefused = defineScript(
      modules.redis,
      'fuegoPoolPromoteRefusedBlock',
      PROMOTE_REFUSED_BLOCK_LUA,
    );
    this.#noteOffChain = defineScript(
      modules.redis,
      'fuegoPoolNoteRefusalOffChain',
      NOTE_REFUSAL_OFF_CHAIN_LUA,
    );
    this.#flagOrphaned = defineScript(
      modules.redis,
      'fuegoPoolFlagOrphanedAfterCredit',
      FLAG_ORPHANED_AFTER_CREDIT_LUA,
    );
    this.#noteRestored = defineScript(modules.redis, 'fuegoPoolNoteRestoredBlock', NOTE_RESTORED_BLOCK_LUA);
    this.#noteReorphaned = defineScript(
      modules.redis,
      'fuegoPoolNoteReorphanedBlock',
      NOTE_REORPHANED_BLOCK_LUA,
    );
    this.#claimAudit = defineScript(modules.redis, 'fuegoPoolClaimReorgAudit', CLAIM_REORG_AUDIT_LUA);
    this.#reinstate = defineScript(
      modules.redis,
      'fuegoPoolReinstateOrphanedBlock',
      REINSTATE_ORPHANED_BLOCK_LUA,
    );
  }

  listBlockCandidates(page: CandidatePage): Promise<StoredBlockCandidate[]> {
    return this.#reader.listBlockCandidates(page);
  }

  getRoundContributions(round: { height: number; hash: string }): Promise<Map<string, bigint>> {
    return this.#reader.getRoundContributions(round);
  }

  readSharesBackFrom(entryId: string, untilDifficulty: bigint): Promise<ShareWindow> {
    return this.#reader.readSharesBackFrom(entryId, untilDifficulty);
  }

  getBlockCandidate(hash: string): Promise<StoredBlockCandidate | null> {
    return this.#reader.getBlockCandidate(hash);
  }

  getBlockWindow(hash: string): Promise<Map<string, bigint>> {
    return this.#reader.getBlockWindow(hash);
  }

  isWindowPending(hash: string): Promise<boolean> {
    return this.#reader.isWindowPending(hash);
  }

  listWindowPending(limit: number): Promise<string[]> {
    return this.#reader.listWindowPending(limit);
  }

  listRefusalsToRecheck(limit: number): Promise<StoredBlockCandidate[]> {
    return this.#reader.listRefusalsToRecheck(limit);
  }

  listCreditedFrom(fromHeight: number, limit: number): Promise<CreditedBlock[]> {
    return this.#credited.listCreditedFrom(fromHeight, limit);
  }

  listCreditedBetween(
    fromHeight: number,
    toHeight: number,
    page: { readonly offset: number; readonly limit: number },
  ): Promise<CreditedBlock[]> {
    return this.#credited.listCreditedBetween(fromHeight, toHeight, page);
  }

  /** Fixes a block's PPLNS weights once; `applied` false when it was not waiting (any more). */
  async fixBlockWindow(request: FixBlockWindowRequest): Promise<{ applied: boolean }> {
    const call = buildFixBlockWindowCall(this.#scriptKeys, request, this.#clock);
    const reply = await this.#write('fix_block_window', this.#fixWindow, call);
    return { applied: reply[0] === 1 };
  }

  /** Credits and confirms atomically; `applied` false when the block was no longer pending. */
  async creditBlock(request: CreditBlockRequest): Promise<CreditOutcome> {
    const call = buildCreditBlockCall(this.#scriptKeys, request, {
      nowMs: this.#clock,
      historyMaxLength: this.#historyMaxLength,
    });
    return outcomeOf(await this.#write('credit_block', this.#credit, call));
  }

  async orphanBlock(request: OrphanBlockRequest): Promise<CreditOutcome> {
    const call = buildOrphanBlockCall(this.#scriptKeys, request, this.#clock());
    return outcomeOf(await this.#write('orphan_block', this.#orphan, call));
  }

  async observeBlock(request: ObserveBlockRequest): Promise<void> {
    const call = buildObserveBlockCall(this.#scriptKeys, request, this.#clock());
    await this.#write('observe_block', this.#observe, call);
  }

  /** record_block_refusal's promotion, fenced; `promoted` false when the record was not a refused one. */
  async promoteRefusedBlock(request: PromoteRefusedBlockRequest): Promise<{ promoted: boolean }> {
    const call = buildPromoteRefusedBlockCall(this.#scriptKeys, request, this.#clock());
    const reply = await run('promote_refused_block', () => this.#promoteRefused(call));
    const refusal = refusalOf(reply, 'promote_refused_block');
    if (refusal) throw refusal;
    if (reply !== 0 && reply !== 2) {
      throw new StoreError('STORE_WRITE_FAILED', 'promote_refused_block gave an unexpected reply', {
        hash: request.hash,
      });
    }
    return { promoted: reply === 2 };
  }

  async noteRefusalOffChain(request: NoteRefusalOffChainRequest): Promise<void> {
    const call = buildNoteRefusalOffChainCall(this.#scriptKeys, request, this.#clock());
    await this.#write('note_refusal_off_chain', this.#noteOffChain, call);
  }

  async flagOrphanedAfterCredit(request: FlagOrphanedAfterCreditRequest): Promise<{ applied: boolean }> {
    const call = buildFlagOrphanedAfterCreditCall(this.#scriptKeys, request, this.#clock());
    const reply = await this.#write('flag_orphaned_after_credit', this.#flagOrphaned, call);
    return { applied: reply[0] === 1 };
  }

  async noteRestoredBlock(request: NoteRestoredBlockRequest): Promise<RestoredOutcome> {
    const call = buildNoteRestoredBlockCall(this.#scriptKeys, request, this.#clock());
    const [code, outcome] = await this.#write('note_restored_block', this.#noteRestored, call);
    if (code !== 1) return 'none';
    if (outcome === 'unflagged' || outcome === 'absorbed' || outcome === 'clawed-back') return outcome;
    throw new StoreError('STORE_WRITE_FAILED', 'note_restored_block gave an unexpected reply', {
      hash: request.hash,
      outcome: String(outcome),
    });
  }

  async noteReorphanedBlock(request: NoteReorphanedBlockRequest): Promise<ReorphanedOutcome> {
    const call = buildNoteReorphanedBlockCall(this.#scriptKeys, request, this.#clock());
    const [code, outcome] = await this.#write('note_reorphaned_block', this.#noteReorphaned, call);
    if (code !== 1) return 'none';
    if (outcome === 'absorbed' || outcome === 'clawed-back' || outcome === 'reflagged') return outcome;
    throw new StoreError('STORE_WRITE_FAILED', 'note_reorphaned_block gave an unexpected reply', {
      hash: request.hash,
      outcome: String(outcome),
    });
  }

  listOrphanedBetween(fromHeight: number, toHeight: number, limit: number): Promise<OrphanedBlock[]> {
    return this.#credited.listOrphanedBetween(fromHeight, toHeight, limit);
  }

  async reinstateOrphanedBlock(request: ReinstateOrphanedBlockRequest): Promise<ReinstateOutcome> {
    const call = buildReinstateOrphanedBlockCall(this.#scriptKeys, request, this.#clock());
    const [code, outcome, reason] = await this.#write('reinstate_orphaned_block', this.#reinstate, call);
    if (code !== 1) return { outcome: 'none' };
    if (outcome === 'reinstated') return { outcome };
    if (outcome === 'noted' && (reason === 'round-merged' || reason === 'no-window')) {
      return { outcome, reason };
    }
    throw new StoreError('STORE_WRITE_FAILED', 'reinstate_orphaned_block gave an unexpected reply', {
      hash: request.hash,
      outcome: String(outcome),
      reason: String(reason),
    });
  }

  /** claim_reorg_audit: true when the audit is due (its start kept); fenced. */
  async claimReorgAudit(request: ClaimReorgAuditRequest): Promise<boolean> {
    const call = buildClaimReorgAuditCall(this.keys, request);
    const [code] = await this.#write('claim_reorg_audit', this.#claimAudit, call);
    return code === 1;
  }

  async #write(operation: string, script: ScriptRunner, call: ScriptCall): Promise<unknown[]> {
    const reply = await run(operation, () => script(call));
    const refusal = refusalOf(reply, operation);
    if (refusal) throw refusal;
    return reply as unknown[];
  }
}

function outcomeOf(reply: unknown[]): CreditOutcome {
  const [code, status] = reply as [number, string];
  return code === 1 ? { applied: true } : { applied: false, status: String(status) };
}

async function run<T>(operation: string, command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof PaymentStoreError) throw error;
    throw toStoreError(error, operation);
  }
}
