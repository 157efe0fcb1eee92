import type { Redis } from 'ioredis';
import type {
  HeldPayout,
  NamedRecipient,
  PayoutWatch,
  SendBackoff,
  UnknownPayment,
} from '../../model/payouts/payout-watch.js';
import { defineScript, type ScriptRunner } from '../scripts/define-script.js';
import { execStorePipeline } from '../store-error.js';
import { DEFAULT_HISTORY_MAX_LENGTH } from './balances-store.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';
import { PaymentStoreError, parseStoredAmount, refusalOf, runPaymentCommand } from './payment-store-error.js';
import {
  buildResolveUnknownCall,
  RESOLVE_UNKNOWN_LUA,
  type ResolveUnknownRequest,
} from './scripts/resolve-unknown-payment.js';

/**
 * Resolved unknown payments listed at most (the newest); unresolved ones are always all listed,
 * since the runner holds their recipients from this list.
 */
const MAX_RESOLVED_LISTED = 1_000;
const PAYMENTS_MAX_LENGTH = 1_000;

/** Who resolves: the fencing token ("" outside leader election) and the payout lock token. */
export interface ResolveWriter {
  readonly fencingToken: string;
  readonly lockToken: string;
}

/**
 * The payout runner's watch list on Redis: unknown tagged transactions, the wallet scan cursor,
 * the miners held in the last pass and the send backoff (keys in payment-keys.ts).
 */
export class PayoutWatchStore implements PayoutWatch {
  readonly keys: PaymentKeys;
  readonly #redis: Redis;
  readonly #clock: () => number;
  readonly #resolve: ScriptRunner;

  constructor(
    opts: { readonly keyPrefix: string },
    modules: { readonly redis: Redis; readonly clock?: () => number },
  ) {
    this.keys = createPaymentKeys(opts.keyPrefix);
    this.#redis = modules.redis;
    this.#clock = modules.clock ?? Date.now;
    this.#resolve = defineScript(modules.redis, 'fuegoPoolResolveUnknownPayment', RESOLVE_UNKNOWN_LUA);
  }

  async recordUnknownPayments(payments: readonly UnknownPayment[]): Promise<UnknownPayment[]> {
    if (payments.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const payment of payments)
      pipeline.hsetnx(this.keys.payoutUnknown, payment.txHash, encodeUnknown(payment));
    const replies = await execStorePipeline('recordUnknownPayments', pipeline);
    return payments.filter((_, index) => replies[index] === 1);
  }

  async listUnknownPayments(): Promise<UnknownPayment[]> {
    const raw = await runPaymentCommand('listUnknownPayments', () =>
      this.#redis.hgetall(this.keys.payoutUnknown),
    );
    const all = Object.values(raw)
      .map(decodeUnknown)
      .sort((a, b) => b.firstSeenMs - a.firstSeenMs);
    // Every unresolved one: each holds its recipients (a restored backup can bring thousands).
    const unresolved = all.filter((p) => p.status === 'unresolved');
    const resolved = all.filter((p) => p.status !== 'unresolved');
    return [...unresolved, ...resolved.slice(0, Math.max(0, MAX_RESOLVED_LISTED - unresolved.length))];
  }

  async getScanCursor(): Promise<number | null> {
    const value = await runPaymentCommand('getScanCursor', () => this.#redis.get(this.keys.payoutScanCursor));
    return value !== null && /^\d+$/.test(value) ? Number(value) : null;
  }

  async setScanCursor(blockCount: number): Promise<void> {
    await runPaymentCommand('setScanCursor', () =>
      this.#redis.set(this.keys.payoutScanCursor, String(blockCount)),
    );
  }

  async replaceHeld(held: readonly HeldPayout[]): Promise<HeldPayout[]> {
    const json = JSON.stringify(
      held.map((h) => ({ a: h.address, amt: h.amountAtomic.toString(), r: h.reason, s: h.sinceMs })),
    );
    const replies = await execStorePipeline(
      'replaceHeld',
      this.#redis.multi().get(this.keys.payoutHeld).set(this.keys.payoutHeld, json),
    );
    return decodeHeld(replies[0]);
  }

  async listHeld(): Promise<HeldPayout[]> {
    return decodeHeld(await runPaymentCommand('listHeld', () => this.#redis.get(this.keys.payoutHeld)));
  }

  async getBackoff(): Promise<SendBackoff | null> {
    const raw = await runPaymentCommand('getBackoff', () => this.#redis.get(this.keys.payoutBackoff));
    if (raw === null) return null;
    try {
      const parsed = JSON.parse(raw) as Record<string, unknown>;
      return {
        untilMs: Number(parsed['untilMs']),
        attempt: Number(parsed['attempt']),
        reason: String(parsed['reason']),
        sinceMs: Number(parsed['sinceMs']),
      };
    } catch {
      throw new PaymentStoreError('CORRUPT_BALANCE', 'corrupt payout backoff', { raw: raw.slice(0, 200) });
    }
  }

  async setBackoff(backoff: SendBackoff): Promise<void> {
    await runPaymentCommand('setBackoff', () =>
      this.#redis.set(this.keys.payoutBackoff, JSON.stringify(backoff)),
    );
  }

  async clearBackoff(): Promise<void> {
    await runPaymentCommand('clearBackoff', () => this.#redis.del(this.keys.payoutBackoff));
  }

  /** Settles an unknown payment as the operator decided (see scripts/resolve-unknown-payment.ts). */
  async resolveUnknownPayment(writer: ResolveWriter, request: ResolveUnknownRequest): Promise<void> {
    const call = buildResolveUnknownCall(
      {
        keys: this.keys,
        writer,
        clock: this.#clock,
        historyMaxLength: DEFAULT_HISTORY_MAX_LENGTH,
        paymentsMaxLength: PAYMENTS_MAX_LENGTH,
      },
      request,
    );
    const reply = await runPaymentCommand('resolve_unknown_payment', () => this.#resolve(call));
    const refusal = refusalOf(reply, 'resolve_unknown_payment');
    if (refusal) throw refusal;
  }
}

/** JSON with every amount as a decimal string (Lua's cjson turns numbers into doubles). */
function encodeUnknown(payment: UnknownPayment): string {
  return JSON.stringify({
    txHash: payment.txHash,
    batchId: payment.batchId,
    blockIndex: payment.blockIndex === null ? '' : String(payment.blockIndex),
    paymentId: payment.paymentId,
    fee: payment.feeAtomic.toString(),
    transfers: payment.transfers.map((t) => ({ a: t.address, amt: t.amountAtomic.toString() })),
    unnamed: payment.unnamedAtomic.toString(),
    firstSeenMs: String(payment.firstSeenMs),
    status: payment.status,
    resolvedAtMs: payment.resolvedAtMs === null ? '' : String(payment.resolvedAtMs),
    resolvedNote: payment.resolvedNote ?? '',
  });
}

function decodeUnknown(raw: string): UnknownPayment {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new PaymentStoreError('CORRUPT_BALANCE', 'corrupt unknown payment record', {
      raw: raw.slice(0, 200),
    });
  }
  const text = (name: string): string => String(parsed[name] ?? '');
  const status = text('status');
  if (status !== 'unresolved' && status !== 'recorded-as-paid' && status !== 'dismissed') {
    throw new PaymentStoreError('CORRUPT_BALANCE', 'corrupt unknown payment status', { status });
  }
  const transfers = Array.isArray(parsed['transfers'])
    ? (parsed['transfers'] as Array<Record<string, string>>)
    : [];
  return {
    txHash: text('txHash'),
    batchId: text('batchId'),
    blockIndex: text('blockIndex') === '' ? null : Number(text('blockIndex')),
    paymentId: text('paymentId'),
    feeAtomic: parseStoredAmount(text('fee'), 'unknown payment fee'),
    transfers: transfers.map((t) => ({
      address: String(t['a']),
      amountAtomic: parseStoredAmount(String(t['amt']), 'unknown payment amount'),
    })),
    // Absent in records written before walletd's rebuilt records were told apart.
    unnamedAtomic:
      text('unnamed') === '' ? 0n : parseStoredAmount(text('unnamed'), 'unknown payment unnamed amount'),
    ...namedRecipientsOf(parsed['recipients']),
    firstSeenMs: Number(text('firstSeenMs')),
    status,
    resolvedAtMs: text('resolvedAtMs') === '' ? null : Number(text('resolvedAtMs')),
    resolvedNote: text('resolvedNote') === '' ? null : text('resolvedNote'),
  };
}

/** The recipients an operator named when resolving it (kept by resolve_unknown_payment), if any. */
function namedRecipientsOf(raw: unknown): { namedRecipients?: NamedRecipient[] } {
  // cjson writes an empty array as {}; the script keeps only a non-empty list.
  if (!Array.isArray(raw) || raw.length === 0) return {};
  return {
    namedRecipients: (raw as Array<Record<string, unknown>>).map((r) => ({
      address: String(r['a']),
      amountAtomic: parseStoredAmount(String(r['amt']), 'unknown payment named recipient amount'),
    })),
  };
}

function decodeHeld(raw: unknown): HeldPayout[] {
  if (typeof raw !== 'string') return [];
  try {
    const list = JSON.parse(raw) as Array<Record<string, unknown>>;
    return list.map((h) => ({
      address: String(h['a']),
      amountAtomic: parseStoredAmount(String(h['amt']), 'held amount'),
      reason: String(h['r']),
      sinceMs: Number(h['s']),
    }));
  } catch (error) {
    if (error instanceof PaymentStoreError) throw error;
    throw new PaymentStoreError('CORRUPT_BALANCE', 'corrupt held payouts list', { raw: raw.slice(0, 200) });
  }
}
