import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { ApiOptions } from '../../config/api-schema.js';
import { PeerBudget } from '../../pool/peer-budget.js';
import { ApiError } from './api-errors.js';
import { apiClientIp, apiPeerKey } from './api-peer.js';

/**
 * Requests per peer for the whole API: a token bucket per peer (api.rateLimit), taken by every
 * route (an onRequest hook, before any work) and by each live feed connection. One client cannot
 * make the pool's event loop, which the stratum server may share, serve it without end.
 */
export class RequestRateLimit {
  readonly #budget: PeerBudget | undefined;
  readonly #exempt: ReadonlySet<string>;
  readonly #ipv6PrefixLength: number;
  readonly #clock: () => number;
  readonly #refusalDelayMs: number;
  #refused = 0;

  constructor(options: ApiOptions['rateLimit'], ipv6PrefixLength: number, clock: () => number) {
    this.#budget =
      options.requestsPerMinute === 0
        ? undefined
        : new PeerBudget({
            burst: options.burst,
            perMinute: options.requestsPerMinute,
            maxPeers: options.maxPeers,
          });
    this.#exempt = new Set(options.exemptIps.map(apiClientIp));
    this.#ipv6PrefixLength = ipv6PrefixLength;
    this.#clock = clock;
    this.#refusalDelayMs = options.refusalDelayMs;
  }

  /** Takes one token of `ip`'s peer; false (counted as refused) when its budget is spent. */
  allows(ip: string | undefined): boolean {
    if (this.#budget === undefined || (ip !== undefined && this.#exempt.has(apiClientIp(ip)))) return true;
    if (this.#budget.take(apiPeerKey(ip, this.#ipv6PrefixLength), this.#clock())) return true;
    this.#refused += 1;
    return false;
  }

  /** Requests and feed connections refused so far. */
  get refused(): number {
    return this.#refused;
  }

  /**
   * Every request takes a token first: past the budget it is answered 429 RATE_LIMITED, after
   * refusalDelayMs (a flood on keep-alive connections then waits instead of costing a reply per
   * round trip).
   */
  register(app: FastifyInstance): void {
    app.addHook('onRequest', async (request, reply) => {
      if (this.allows(request.socket.remoteAddress)) return;
      if (this.#refusalDelayMs > 0) await delay(this.#refusalDelayMs);
      reply.header('retry-after', '1');
      throw new ApiError('RATE_LIMITED');
    });
  }
}
