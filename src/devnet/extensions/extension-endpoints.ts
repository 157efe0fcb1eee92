import { canonicalJson, parseJsonOrUndefined } from '../http/canonical-json.js';
import type { HttpOutcome, HttpRequestView } from '../http/rpc-http-server.js';

export interface AliasEntry {
  readonly alias: string;
  readonly address: string;
}

export interface HeatDeposit {
  readonly id: number;
  readonly amount: number;
  readonly term: number;
  readonly unlock_height: number;
  readonly creating_tx_hash: string;
  readonly deposit_type: string;
}

export interface FeePoolInfo {
  readonly fee_pool_balance: number;
  readonly current_epoch_swap_fees: number;
  readonly total_cd_locked: number;
  readonly current_epoch_number: number;
}

export interface EpochEntry {
  readonly epoch_number: number;
  readonly swap_fees: number;
  readonly total_cd_locked: number;
}

/** The data behind the extension endpoints, from the devnet config file. */
export interface ExtensionData {
  readonly feeAddress: string;
  readonly aliases: readonly AliasEntry[];
  readonly deposits: readonly HeatDeposit[];
  readonly feePool: FeePoolInfo;
  readonly epochs: readonly EpochEntry[];
  readonly treasuryBalance: number;
}

const MAX_EPOCH_HISTORY = 100;
const MIN_ROLLOVER_TERM_EPOCHS = 6;
const MAX_ROLLOVER_TERM_EPOCHS = 72;

/**
 * Fee pool, alias and HEAT deposit endpoints of interface §4.5 (and `/getfeeaddress` of §4.2), which
 * the real 1.9.3 daemon does not serve. Response fields the interface leaves "not shown" are the
 * devnet's own choice and documented on each handler. Replies use the daemon's direct-path headers.
 */
export class ExtensionEndpoints {
  readonly #data: ExtensionData;
  readonly #aliases: AliasEntry[];
  readonly #deposits: HeatDeposit[];
  #nextDepositId: number;

  /** Registers (or re-points) an alias, as an on-chain registration would (control API). */
  registerAlias(alias: string, address: string): void {
    const name = alias.replace(/^@/, '');
    const existing = this.#aliases.findIndex((a) => a.alias === name);
    if (existing >= 0) this.#aliases.splice(existing, 1);
    this.#aliases.push({ alias: name, address });
  }

  constructor(data: ExtensionData) {
    this.#data = data;
    this.#aliases = [...data.aliases];
    this.#deposits = [...data.deposits];
    this.#nextDepositId = Math.max(0, ...data.deposits.map((d) => d.id)) + 1;
  }

  /** The reply for an extension path, or undefined when `path` is not one. */
  handle(request: HttpRequestView, chainHeight: number): HttpOutcome | undefined {
    const handler = this.#route(request.path);
    if (!handler) return undefined;
    const parsed = request.body.trim() === '' ? { value: {} } : parseJsonOrUndefined(request.body);
    const body = parsed?.value;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return reply({ status: 'Failed' });
    return reply(handler(body as Record<string, unknown>, chainHeight));
  }

  #route(
    path: string,
  ): ((body: Record<string, unknown>, height: number) => Record<string, unknown>) | undefined {
    switch (path) {
      case '/getfeeaddress':
        return () => ({ fee_address: this.#data.feeAddress, status: 'OK' });
      case '/get_fee_pool_info':
        return () => ({ ...this.#data.feePool, status: 'OK' });
      case '/get_epoch_history':
        return (body) => {
          const count = Math.min(MAX_EPOCH_HISTORY, Math.max(0, integer(body['count'], MAX_EPOCH_HISTORY)));
          return { epochs: this.#data.epochs.slice(-count || this.#data.epochs.length), status: 'OK' };
        };
      case '/estimate_cd_yield':
        return (body, height) => this.#estimateYield(body, height);
      case '/get_treasury_info':
        return () => ({ status: 'OK', treasury_balance: this.#data.treasuryBalance });
      case '/get_alias':
        return (body) => this.#getAlias(body);
      case '/get_alias_by_address':
        return (body) => {
          const address = typeof body['address'] === 'string' ? body['address'] : '';
          const entry = this.#aliases.find((a) => a.address === address);
          return { address, alias: entry?.alias ?? '', found: entry !== undefined, status: 'OK' };
        };
      case '/get_all_aliases':
        return () => ({
          aliases: this.#aliases.map((a) => ({ address: a.address, alias: a.alias })),
          status: 'OK',
        });
      case '/getdeposits':
        return () => ({ deposits: this.#deposits, status: 'OK' });
      case '/get_maturing_deposits':
        return (body, height) => {
          const current = integer(body['current_height'], 0) || height;
          const within = integer(body['maturing_in'], 0);
          return {
            deposits: this.#deposits.filter((d) => d.unlock_height <= current + within),
            status: 'OK',
          };
        };
      case '/rollover_deposit':
        return (body, height) => this.#rollover(body, height);
      default:
        return undefined;
    }
  }

  /** Leading '@' optional and equivalent; names compare case-insensitively; unknown is found:false, status OK. */
  #getAlias(body: Record<string, unknown>): Record<string, unknown> {
    const raw = typeof body['alias'] === 'string' ? body['alias'] : '';
    const name = raw.startsWith('@') ? raw.slice(1) : raw;
    const entry = this.#aliases.find((a) => a.alias.replace(/^@/, '').toLowerCase() === name.toLowerCase());
    return {
      address: entry?.address ?? '',
      alias: entry?.alias.replace(/^@/, '') ?? name,
      found: entry !== undefined,
      status: 'OK',
    };
  }

  /** Devnet model: the principal's share of the fee pool, `fee_pool_balance × amount / (total locked + amount)`. */
  #estimateYield(body: Record<string, unknown>, height: number): Record<string, unknown> {
    const amount = Math.max(0, integer(body['amount'], 0));
    const locked = this.#data.feePool.total_cd_locked + amount;
    const estimated = locked === 0 ? 0 : Math.floor((this.#data.feePool.fee_pool_balance * amount) / locked);
    return {
      amount,
      creation_height: integer(body['creation_height'], 0),
      current_height: integer(body['current_height'], 0) || height,
      estimated_yield: estimated,
      status: 'OK',
    };
  }

  /** Closes a matured HEAT CD and opens a new one for principal + estimated yield. */
  #rollover(body: Record<string, unknown>, height: number): Record<string, unknown> {
    const id = Number(typeof body['deposit_id'] === 'string' ? body['deposit_id'] : Number.NaN);
    const newTerm = integer(body['new_term'], 0);
    const index = this.#deposits.findIndex((d) => d.id === id);
    const deposit = this.#deposits[index];
    if (deposit?.deposit_type !== 'HEAT') return { error: 'deposit not found', status: 'Failed' };
    if (newTerm < MIN_ROLLOVER_TERM_EPOCHS || newTerm > MAX_ROLLOVER_TERM_EPOCHS) {
      return { error: 'new_term must be 6..72 epochs', status: 'Failed' };
    }
    if (deposit.unlock_height > height) return { error: 'deposit has not matured', status: 'Failed' };
    const interest = Number(this.#estimateYield({ amount: deposit.amount }, height)['estimated_yield']);
    const opened: HeatDeposit = {
      id: this.#nextDepositId++,
      amount: deposit.amount + interest,
      term: newTerm,
      unlock_height: height + newTerm * 16440,
      creating_tx_hash: deposit.creating_tx_hash,
      deposit_type: 'HEAT',
    };
    this.#deposits.splice(index, 1, opened);
    return { claimed_interest: interest, new_deposit_id: String(opened.id), status: 'OK' };
  }
}

function integer(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : fallback;
}

function reply(value: unknown): HttpOutcome {
  return {
    kind: 'reply',
    status: 200,
    body: canonicalJson(value),
    headers: [
      ['Access-Control-Allow-Origin', '*'],
      ['Server', 'Fuego (CryptoNote-based) HTTP server'],
      ['content-type', 'application/json'],
    ],
  };
}
