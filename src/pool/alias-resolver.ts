import type { Logger } from '../log/logger.js';
import { parseAddress } from './login.js';
import { StratumError } from './stratum-errors.js';

/** The daemon's alias lookup (DaemonClient.getAlias). Throws an RpcError with code RPC_NOT_SUPPORTED on a daemon without it. */
export interface AliasDaemon {
  getAlias(alias: string): Promise<{ readonly found: boolean; readonly address: string }>;
}

export interface AliasResolverOptions {
  /** How long a found alias is trusted. */
  readonly ttlMs: number;
  /** How long "no such alias" is remembered (protects the daemon from login loops). */
  readonly negativeTtlMs: number;
  /** How long after "the daemon has no alias endpoint" we stop asking. */
  readonly unsupportedTtlMs: number;
  /** Cache entries kept at most; the oldest go first. */
  readonly maxEntries: number;
}

export interface AliasResolverModules {
  readonly daemon: AliasDaemon;
  readonly logger: Logger;
  /** Milliseconds that only go forward (monotonicMs): TTLs must not follow a wall-clock step. */
  readonly elapsedClock: () => number;
}

type CacheEntry =
  | { readonly found: true; readonly address: string; readonly expiresAtMs: number }
  | { readonly found: false; readonly expiresAtMs: number };

/**
 * Resolves `@alias` logins to payout addresses through the daemon, with a TTL cache, a negative
 * cache and one shared lookup per alias in flight. Refusals are StratumErrors:
 *   ALIAS_NOT_FOUND   the daemon knows no such alias (or maps it to something that is no address)
 *   ALIAS_UNAVAILABLE the daemon has no alias endpoint, or the lookup failed; address logins are unaffected
 */
export class AliasResolver {
  readonly #options: AliasResolverOptions;
  readonly #modules: AliasResolverModules;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #inFlight = new Map<string, Promise<string>>();
  #unsupportedUntilMs = Number.NEGATIVE_INFINITY;

  constructor(options: AliasResolverOptions, modules: AliasResolverModules) {
    this.#options = options;
    this.#modules = modules;
  }

  /** `alias` without the leading `@`. Resolves to a validated Fuego address. */
  resolve(alias: string): Promise<string> {
    const now = this.#modules.elapsedClock();
    if (now < this.#unsupportedUntilMs) {
      return Promise.reject(new StratumError('ALIAS_UNAVAILABLE', { alias, reason: 'NOT_SUPPORTED' }));
    }
    const cached = this.#cache.get(alias);
    if (cached !== undefined) {
      if (cached.expiresAtMs > now) {
        return cached.found
          ? Promise.resolve(cached.address)
          : Promise.reject(new StratumError('ALIAS_NOT_FOUND', { alias }));
      }
      this.#cache.delete(alias);
    }
    const pending = this.#inFlight.get(alias);
    if (pending !== undefined) return pending;
    const lookup = this.#lookup(alias).finally(() => this.#inFlight.delete(alias));
    this.#inFlight.set(alias, lookup);
    return lookup;
  }

  async #lookup(alias: string): Promise<string> {
    let answer: { found: boolean; address: string };
    try {
      answer = await this.#modules.daemon.getAlias(alias);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'RPC_NOT_SUPPORTED') {
        this.#unsupportedUntilMs = this.#modules.elapsedClock() + this.#options.unsupportedTtlMs;
        this.#modules.logger.warn('daemon has no alias endpoint: @alias logins are refused');
        throw new StratumError('ALIAS_UNAVAILABLE', { alias, reason: 'NOT_SUPPORTED' });
      }
      this.#modules.logger.warn({ err: error, alias }, 'alias lookup failed');
      throw new StratumError('ALIAS_UNAVAILABLE', { alias, reason: 'LOOKUP_FAILED' });
    }
    const now = this.#modules.elapsedClock();
    if (!answer.found || typeof answer.address !== 'string' || answer.address.length === 0) {
      this.#remember(alias, { found: false, expiresAtMs: now + this.#options.negativeTtlMs });
      throw new StratumError('ALIAS_NOT_FOUND', { alias });
    }
    try {
      parseAddress(answer.address);
    } catch {
      this.#modules.logger.warn({ alias }, 'daemon mapped an alias to an invalid address');
      this.#remember(alias, { found: false, expiresAtMs: now + this.#options.negativeTtlMs });
      throw new StratumError('ALIAS_NOT_FOUND', { alias, reason: 'INVALID_ADDRESS' });
    }
    this.#remember(alias, { found: true, address: answer.address, expiresAtMs: now + this.#options.ttlMs });
    return answer.address;
  }

  #remember(alias: string, entry: CacheEntry): void {
    this.#cache.delete(alias);
    this.#cache.set(alias, entry);
    // Map iteration is insertion order: the first keys are the oldest.
    while (this.#cache.size > this.#options.maxEntries) {
      const oldest = this.#cache.keys().next();
      if (oldest.done === true) break;
      this.#cache.delete(oldest.value);
    }
  }
}
