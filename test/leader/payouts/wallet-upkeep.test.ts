import { describe, expect, it } from 'vitest';
import { runPayoutPass } from '../../../src/leader/payouts/payout-pass.js';
import {
  FUSION_SPENDABLE_BLOCKS,
  type UpkeepWallet,
  WalletUpkeep,
  type WalletUpkeepOptions,
} from '../../../src/leader/payouts/wallet-upkeep.js';
import type { PayoutBatch } from '../../../src/model/payouts/payout-batch.js';
import type {
  SentFusion,
  UpkeepRequest,
  WalletUpkeepRecord,
} from '../../../src/model/payouts/wallet-upkeep-record.js';
import type { PayoutRunSummary } from '../../../src/pool/payouts/payout-reports.js';
import { RpcError } from '../../../src/rpc/rpc-error.js';
import {
  UNCONFIRMED_BLOCK_INDEX,
  WALLET_ERRORS,
  WALLET_TRANSACTION_STATE,
  type WalletErrorKind,
} from '../../../src/rpc/wallet-client.js';
import type { WalletTransaction } from '../../../src/rpc/wallet-schemas.js';
import { silentLogger } from '../../store/store-fixtures.js';

/**
 * The upkeep's decisions against a scripted walletd (its fusion rules reduced to counts) and
 * in-memory ports; the devnet scenarios are in test/integration/wallet-upkeep-devnet.test.ts.
 */

const ADDRESS = `fire${'W'.repeat(94)}`;

function walletError(kind: WalletErrorKind): RpcError {
  const { applicationCode, message } = WALLET_ERRORS[kind];
  return new RpcError('RPC_ERROR', message, { rpcCode: -32000, rpcMessage: message, applicationCode });
}

/** walletd's fusion bookkeeping as counts: each fusion joins the first power of ten with 12+ ready. */
class ScriptedWallet implements UpkeepWallet {
  blockCount = 1_000;
  /** Ready outputs per power of ten. */
  groups: number[];
  otherOutputs: number;
  readonly txs = new Map<string, { blockIndex: number; state: number }>();
  readonly fusionRequests: Array<{
    destinationAddress?: string;
    thresholdAtomic: bigint;
    anonymity: number;
  }> = [];
  estimateErrors: unknown[] = [];
  sendErrors: unknown[] = [];
  #serial = 0;

  constructor(groups: number[], otherOutputs: number) {
    this.groups = [...groups];
    this.otherOutputs = otherOutputs;
  }

  async estimateFusion() {
    const error = this.estimateErrors.shift();
    if (error !== undefined) throw error;
    const ready = this.groups.filter((n) => n >= 12).reduce((sum, n) => sum + n, 0);
    const all = this.groups.reduce((sum, n) => sum + n, 0) + this.otherOutputs;
    return { fusionReadyCount: ready, totalOutputCount: all };
  }

  async sendFusionTransaction(request: Parameters<UpkeepWallet['sendFusionTransaction']>[0]) {
    this.fusionRequests.push({ ...request });
    const error = this.sendErrors.shift();
    if (error !== undefined) throw error;
    const index = this.groups.findIndex((n) => n >= 12);
    if (index < 0) throw walletError('FUSION_NOTHING_TO_OPTIMIZE');
    this.groups.splice(index, 1);
    this.otherOutputs += 2;
    this.#serial += 1;
    const transactionHash = this.#serial.toString(16).padStart(64, '0');
    this.txs.set(transactionHash, { blockIndex: UNCONFIRMED_BLOCK_INDEX, state: 0 });
    return { transactionHash };
  }

  async getStatus() {
    return {
      blockCount: this.blockCount,
      knownBlockCount: this.blockCount,
      lastBlockHash: '00'.repeat(32),
      peerCount: 1,
      depositCount: 0,
      transactionCount: this.txs.size,
      addressCount: 1,
    };
  }

  async getAddresses() {
    return [ADDRESS];
  }

  async getTransaction(transactionHash: string): Promise<WalletTransaction> {
    const tx = this.txs.get(transactionHash);
    if (tx === undefined) throw walletError('OBJECT_NOT_FOUND');
    return { ...tx, transactionHash } as unknown as WalletTransaction;
  }

  /** Mines every unconfirmed fusion into the next block, then `blocks - 1` more. */
  mine(blocks: number): void {
    for (const tx of this.txs.values())
      if (tx.blockIndex === UNCONFIRMED_BLOCK_INDEX) tx.blockIndex = this.blockCount;
    this.blockCount += blocks;
  }
}

class MemoryRecord implements WalletUpkeepRecord {
  request: UpkeepRequest | null = null;
  readonly fusions = new Map<string, SentFusion>();
  async getRequest() {
    return this.request;
  }
  async setRequest(request: UpkeepRequest) {
    this.request = request;
  }
  async clearRequest() {
    this.request = null;
  }
  async listFusions() {
    return [...this.fusions.values()];
  }
  async addFusion(fusion: SentFusion) {
    this.fusions.set(fusion.txHash, fusion);
  }
  async removeFusions(hashes: readonly string[]) {
    for (const hash of hashes) this.fusions.delete(hash);
  }
}

class MemoryJournal {
  lockHolder: string | null = null;
  open: PayoutBatch[] = [];
  backoffCleared = 0;
  async acquireLock(token: string) {
    if (this.lockHolder !== null) return false;
    this.lockHolder = token;
    return true;
  }
  async renewLock(token: string) {
    return this.lockHolder === token;
  }
  async releaseLock(token: string) {
    if (this.lockHolder === token) this.lockHolder = null;
  }
  async listOpenBatches() {
    return this.open;
  }
  async clearBackoff() {
    this.backoffCleared += 1;
  }
}

const OPTIONS: WalletUpkeepOptions = {
  enabled: true,
  thresholdAtomic: 1_000_000_000n,
  readyShare: 0.5,
  maxFusionsPerRun: 10,
  walletChangeAddress: undefined,
  lockTtlMs: 10_000,
};

function upkeepOn(
  wallet: ScriptedWallet,
  options: Partial<WalletUpkeepOptions> = {},
  extra: { fencingToken?: () => string | null } = {},
) {
  const record = new MemoryRecord();
  const journal = new MemoryJournal();
  const upkeep = new WalletUpkeep(
    { ...OPTIONS, ...options },
    { wallet, journal, watch: journal, record, logger: silentLogger, clock: () => 1_000, ...extra },
  );
  return { upkeep, record, journal };
}

describe('wallet upkeep: when it consolidates', () => {
  it('sends fusions to the first address when the ready share is reached, until nothing is ready', async () => {
    const wallet = new ScriptedWallet([300, 200, 5], 150);
    const { upkeep, record, journal } = upkeepOn(wallet);
    const report = await upkeep.runOnce();
    expect(report).toMatchObject({ state: 'pending', trigger: 'share' });
    expect(report.sent).toHaveLength(2);
    expect(report.pending).toEqual(report.sent);
    expect(report.estimate).toEqual({ fusionReadyCount: 0, totalOutputCount: 159 });
    expect(wallet.fusionRequests).toEqual([
      { thresholdAtomic: 1_000_000_000n, anonymity: 0, destinationAddress: ADDRESS },
      { thresholdAtomic: 1_000_000_000n, anonymity: 0, destinationAddress: ADDRESS },
    ]);
    expect([...record.fusions.values()].map((f) => [f.txHash, f.trigger])).toEqual(
      report.sent.map((hash) => [hash, 'share']),
    );
    expect(journal.lockHolder).toBeNull();
  });

  it('sends to the configured change address', async () => {
    const wallet = new ScriptedWallet([300], 10);
    const change = `fire${'C'.repeat(94)}`;
    await upkeepOn(wallet, { walletChangeAddress: change }).upkeep.runOnce();
    expect(wallet.fusionRequests[0]?.destinationAddress).toBe(change);
  });

  it('does nothing below the ready share, and nothing at all when disabled unless the operator asks', async () => {
    const below = new ScriptedWallet([60], 100);
    expect(await upkeepOn(below).upkeep.runOnce()).toMatchObject({ state: 'idle', sent: [] });
    const disabled = new ScriptedWallet([300], 10);
    const { upkeep } = upkeepOn(disabled, { enabled: false });
    upkeep.request('Transaction size is too big');
    expect(upkeep.hasRequest()).toBe(false);
    expect(await upkeep.runOnce()).toMatchObject({ state: 'idle', sent: [] });
    expect(disabled.fusionRequests).toEqual([]);
    const asked = await upkeep.runOnce({ operator: true });
    expect(asked).toMatchObject({ state: 'pending', trigger: 'operator' });
    expect(asked.sent).toHaveLength(1);
  });

  it('consolidates after a refusal whatever the share, and forgets the request once it tried', async () => {
    const wallet = new ScriptedWallet([30], 500);
    const { upkeep, record } = upkeepOn(wallet);
    upkeep.request('MixIn count is too big');
    expect(upkeep.hasRequest()).toBe(true);
    await Promise.resolve();
    expect(record.request?.reason).toBe('MixIn count is too big');
    const report = await upkeep.runOnce();
    expect(report).toMatchObject({ state: 'pending', trigger: 'refusal' });
    expect(upkeep.hasRequest()).toBe(false);
    expect(record.request).toBeNull();
  });

  it('takes a request another process stored (a standalone payout pass was refused)', async () => {
    const wallet = new ScriptedWallet([30], 500);
    const { upkeep, record } = upkeepOn(wallet);
    record.request = { reason: 'Transaction size is too big', atMs: 1 };
    expect(await upkeep.runOnce()).toMatchObject({ state: 'pending', trigger: 'refusal' });
  });

  it('drops a refusal request with nothing to join (the backoff stays)', async () => {
    const wallet = new ScriptedWallet([5, 7], 500);
    const { upkeep, record, journal } = upkeepOn(wallet);
    upkeep.request('Transaction size is too big');
    const report = await upkeep.runOnce();
    expect(report).toMatchObject({ state: 'idle', trigger: 'refusal', sent: [] });
    expect(record.request).toBeNull();
    expect(journal.backoffCleared).toBe(0);
  });

  it('sends at most maxFusionsPerRun', async () => {
    const wallet = new ScriptedWallet([20, 20, 20, 20], 10);
    const report = await upkeepOn(wallet, { maxFusionsPerRun: 3 }).upkeep.runOnce();
    expect(report.sent).toHaveLength(3);
    expect(wallet.groups).toEqual([20]);
  });
});

describe('wallet upkeep: when it does not', () => {
  it('waits while a payout batch is open, keeping the request', async () => {
    const wallet = new ScriptedWallet([300], 10);
    const { upkeep, record, journal } = upkeepOn(wallet);
    journal.open = [{ id: 'b-open' } as PayoutBatch];
    upkeep.request('Transaction size is too big');
    const report = await upkeep.runOnce({ operator: false });
    expect(report.state).toBe('deferred');
    expect(report.detail).toContain('b-open');
    expect(await upkeep.runOnce({ operator: true })).toMatchObject({ state: 'deferred', sent: [] });
    expect(wallet.fusionRequests).toEqual([]);
    expect(record.request).not.toBeNull();
    journal.open = [];
    expect((await upkeep.runOnce()).sent).toHaveLength(1);
  });

  it('waits while the payout lock is held or this process is not the leader', async () => {
    const wallet = new ScriptedWallet([300], 10);
    const { upkeep, journal } = upkeepOn(wallet);
    journal.lockHolder = 'a payout pass';
    expect(await upkeep.runOnce({ operator: true })).toMatchObject({ state: 'deferred', sent: [] });
    const standby = upkeepOn(wallet, {}, { fencingToken: () => null }).upkeep;
    expect(await standby.runOnce({ operator: true })).toMatchObject({ state: 'deferred', sent: [] });
    expect(wallet.fusionRequests).toEqual([]);
  });

  it('waits for a wallet behind its daemon (41), keeping the request', async () => {
    const wallet = new ScriptedWallet([300, 300], 10);
    const { upkeep, record } = upkeepOn(wallet);
    upkeep.request('Transaction size is too big');
    wallet.estimateErrors.push(walletError('DAEMON_NOT_SYNCED'));
    expect(await upkeep.runOnce()).toMatchObject({ state: 'deferred', sent: [] });
    wallet.sendErrors.push(walletError('DAEMON_NOT_SYNCED'));
    expect(await upkeep.runOnce()).toMatchObject({ state: 'deferred', sent: [] });
    expect(record.request).not.toBeNull();
    // Later, synced: it goes ahead.
    expect((await upkeep.runOnce()).sent).toHaveLength(2);
    expect(record.request).toBeNull();
  });

  it('stops quietly when walletd finds fewer inputs than its estimate (7, 8)', async () => {
    for (const kind of ['FUSION_NOTHING_TO_OPTIMIZE', 'FUSION_TOO_FEW_INPUTS'] as const) {
      const wallet = new ScriptedWallet([300], 10);
      const { upkeep, record } = upkeepOn(wallet);
      upkeep.request('Transaction size is too big');
      wallet.sendErrors.push(walletError(kind));
      expect(await upkeep.runOnce()).toMatchObject({ state: 'idle', trigger: 'refusal', sent: [] });
      expect(record.request).toBeNull();
    }
  });

  it('keeps what it sent when a later send fails', async () => {
    const wallet = new ScriptedWallet([300, 300], 10);
    const { upkeep, record } = upkeepOn(wallet);
    upkeep.request('Transaction size is too big');
    wallet.sendErrors.push(undefined, walletError('NODE_REFUSED'));
    const report = await upkeep.runOnce();
    expect(report.state).toBe('pending');
    expect(report.sent).toHaveLength(1);
    expect(report.detail).toContain('stopped');
    expect(record.fusions.size).toBe(1);
  });
});

describe('wallet upkeep: waiting for the fusions', () => {
  it(`reports pending until the fusions are ${FUSION_SPENDABLE_BLOCKS} blocks deep, then lifts the backoff and lets payouts go first`, async () => {
    const wallet = new ScriptedWallet([300, 300], 100);
    const { upkeep, record, journal } = upkeepOn(wallet);
    const first = await upkeep.runOnce();
    expect(first.sent).toHaveLength(2);
    // More small outputs arrive meanwhile: the share is reached again.
    wallet.groups.push(200);
    expect(await upkeep.runOnce()).toMatchObject({ state: 'pending', pending: first.sent, sent: [] });
    wallet.mine(FUSION_SPENDABLE_BLOCKS - 1);
    expect((await upkeep.runOnce()).state).toBe('pending');
    expect(journal.backoffCleared).toBe(0);
    wallet.mine(1);
    const spendable = await upkeep.runOnce();
    expect(spendable).toMatchObject({ state: 'idle', confirmed: first.sent, sent: [], pending: [] });
    expect(journal.backoffCleared).toBe(1);
    expect(record.fusions.size).toBe(0);
    // The run after the payout pass consolidates again.
    expect((await upkeep.runOnce()).sent).toHaveLength(1);
  });

  it('forgets fusions walletd never relayed, dropped, or has no record of, without lifting the backoff', async () => {
    const wallet = new ScriptedWallet([300, 300, 300], 10);
    const { upkeep, record, journal } = upkeepOn(wallet);
    const { sent } = await upkeep.runOnce();
    wallet.txs.get(sent[0]!)!.state = WALLET_TRANSACTION_STATE.FAILED;
    wallet.txs.get(sent[1]!)!.state = WALLET_TRANSACTION_STATE.CANCELLED;
    wallet.txs.delete(sent[2]!);
    const report = await upkeep.runOnce({ operator: true });
    expect(report.confirmed).toEqual([]);
    expect(record.fusions.size).toBe(0);
    expect(journal.backoffCleared).toBe(0);
  });
});

describe('payout pass with the upkeep', () => {
  const SUMMARY: PayoutRunSummary = {
    skipped: null,
    detail: '',
    recovered: [],
    batches: [],
    stillOpen: [],
    skippedMiners: [],
    unknownPayments: [],
    walletMissing: [],
    unmined: [],
  };

  it('holds the pass while fusions are pending, with the reason naming them', async () => {
    const wallet = new ScriptedWallet([300], 10);
    const { upkeep } = upkeepOn(wallet);
    let runs = 0;
    const reasons: string[] = [];
    const summary = await runPayoutPass({
      payouts: {
        runOnce: async () => {
          runs += 1;
          return SUMMARY;
        },
      },
      upkeep,
      holdPass: async (reason) => {
        reasons.push(reason);
        return [{ address: ADDRESS, amountAtomic: 5n, reason, sinceMs: 1 }];
      },
      logger: silentLogger,
    });
    expect(runs).toBe(0);
    expect(summary.skipped).toBe('wallet-upkeep');
    expect(summary.skippedMiners.map((m) => m.address)).toEqual([ADDRESS]);
    const [fusion] = wallet.txs.keys();
    expect(reasons).toEqual([summary.detail]);
    expect(summary.detail).toContain(fusion!.slice(0, 16));
  });

  it('consolidates right after a refusal in the pass, and goes on when the upkeep fails', async () => {
    const wallet = new ScriptedWallet([30], 500);
    const { upkeep } = upkeepOn(wallet);
    const refused = await runPayoutPass({
      payouts: {
        runOnce: async () => {
          upkeep.request('Transaction size is too big');
          return { ...SUMMARY, skipped: 'backoff', detail: 'the wallet refused' };
        },
      },
      upkeep,
      logger: silentLogger,
    });
    expect(wallet.fusionRequests).toHaveLength(1);
    expect(refused.detail).toMatch(/^the wallet refused; wallet consolidating its outputs/);

    const broken = { runOnce: async () => Promise.reject(new Error('redis down')), hasRequest: () => false };
    let runs = 0;
    await runPayoutPass({
      payouts: {
        runOnce: async () => {
          runs += 1;
          return SUMMARY;
        },
      },
      upkeep: broken,
      logger: silentLogger,
    });
    expect(runs).toBe(1);
  });
});
