import type { Redis } from 'ioredis';
import type {
  SentFusion,
  UpkeepRequest,
  UpkeepTrigger,
  WalletUpkeepRecord,
} from '../../model/payouts/wallet-upkeep-record.js';
import { runStoreCommand, StoreError } from '../store-error.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';

const TRIGGERS: ReadonlySet<string> = new Set<UpkeepTrigger>(['refusal', 'share', 'operator']);

/**
 * The wallet upkeep's memory on Redis (keys in payment-keys.ts): `<p>:payout:upkeep-request` and
 * `<p>:payout:fusions`. Each write is one command on one field, so the runner's hook setting a
 * request and the upkeep recording a fusion never overwrite each other.
 */
export class WalletUpkeepStore implements WalletUpkeepRecord {
  readonly keys: PaymentKeys;
  readonly #redis: Redis;

  constructor(opts: { readonly keyPrefix: string }, modules: { readonly redis: Redis }) {
    this.keys = createPaymentKeys(opts.keyPrefix);
    this.#redis = modules.redis;
  }

  async getRequest(): Promise<UpkeepRequest | null> {
    const raw = await runStoreCommand('getUpkeepRequest', () =>
      this.#redis.get(this.keys.payoutUpkeepRequest),
    );
    if (raw === null) return null;
    const parsed = parseJson(raw, 'upkeep request');
    const atMs = Number(parsed['atMs']);
    if (typeof parsed['reason'] !== 'string' || !Number.isSafeInteger(atMs))
      throw corrupt('upkeep request', raw);
    return { reason: parsed['reason'], atMs };
  }

  async setRequest(request: UpkeepRequest): Promise<void> {
    const json = JSON.stringify({ reason: request.reason.slice(0, 500), atMs: request.atMs });
    await runStoreCommand('setUpkeepRequest', () => this.#redis.set(this.keys.payoutUpkeepRequest, json));
  }

  async clearRequest(): Promise<void> {
    await runStoreCommand('clearUpkeepRequest', () => this.#redis.del(this.keys.payoutUpkeepRequest));
  }

  async listFusions(): Promise<SentFusion[]> {
    const raw = await runStoreCommand('listFusions', () => this.#redis.hgetall(this.keys.payoutFusions));
    return Object.entries(raw)
      .map(([txHash, value]) => decodeFusion(txHash, value))
      .sort((a, b) => a.sentAtMs - b.sentAtMs);
  }

  async addFusion(fusion: SentFusion): Promise<void> {
    const json = JSON.stringify({ sentAtMs: fusion.sentAtMs, trigger: fusion.trigger });
    await runStoreCommand('addFusion', () => this.#redis.hset(this.keys.payoutFusions, fusion.txHash, json));
  }

  async removeFusions(txHashes: readonly string[]): Promise<void> {
    if (txHashes.length === 0) return;
    await runStoreCommand('removeFusions', () => this.#redis.hdel(this.keys.payoutFusions, ...txHashes));
  }
}

function decodeFusion(txHash: string, raw: string): SentFusion {
  const parsed = parseJson(raw, 'fusion record');
  const sentAtMs = Number(parsed['sentAtMs']);
  const trigger = String(parsed['trigger']);
  if (!Number.isSafeInteger(sentAtMs) || !TRIGGERS.has(trigger)) throw corrupt('fusion record', raw);
  return { txHash, sentAtMs, trigger: trigger as UpkeepTrigger };
}

function parseJson(raw: string, what: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null) return parsed as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw corrupt(what, raw);
}

function corrupt(what: string, raw: string): StoreError {
  return new StoreError('CORRUPT_RECORD', `corrupt ${what}`, { raw: raw.slice(0, 200) });
}
