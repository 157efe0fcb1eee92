import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { FuegoPoolError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { defineScript, type ScriptRunner } from '../store/scripts/define-script.js';
import { createClusterKeys } from './cluster-keys.js';

export type NodeIdClaimErrorCode = 'NODE_ID_IN_USE';

export class NodeIdClaimError extends FuegoPoolError<NodeIdClaimErrorCode> {}

/**
 * renew: extends the claim if it is still ours, takes it again if it ran out (Redis was away
 * longer than the lease), and otherwise reports who holds it.
 * KEYS: 1 `<p>:node:<id>`. ARGV: 1 our value, 2 lease ms. Returns 1 (extended), 2 (taken again)
 * or the other holder's value.
 */
const RENEW_LUA = `
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if held == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 2
end
return held
`;

/** release: deletes the claim only if it is still ours. KEYS as renew; ARGV: 1 our value. */
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

export interface NodeIdClaimOptions {
  readonly keyPrefix: string;
  readonly nodeId: number;
  /** Lease length: a crashed holder's claim runs out this long after its last renewal. */
  readonly ttlMs: number;
  readonly renewIntervalMs: number;
  /** Who holds it, for the other process's error message and the logs, e.g. "host:pid". */
  readonly holderName: string;
  /** How long a claim held by someone else is waited for (a crashed holder's runs out); default ttl + renew interval. */
  readonly waitMs?: number;
}

export interface NodeIdClaimModules {
  readonly redis: Redis;
  readonly logger: Logger;
}

/**
 * A stratum process's node id, held in Redis as a lease (`<p>:node:<id>`). The node id is the
 * first two bytes of every extra nonce, so two live processes with one id would hand out the same
 * blobs and split the same work: the second one does not start. A claim left by a process that
 * died runs out after the lease, so a restart waits at most that long.
 */
export class NodeIdClaim {
  readonly #options: NodeIdClaimOptions;
  readonly #modules: NodeIdClaimModules;
  readonly #key: string;
  readonly #value: string;
  readonly #renew: ScriptRunner;
  readonly #release: ScriptRunner;
  #timer: NodeJS.Timeout | undefined;
  #conflictLogged = false;

  private constructor(options: NodeIdClaimOptions, modules: NodeIdClaimModules) {
    this.#options = options;
    this.#modules = modules;
    this.#key = createClusterKeys(options.keyPrefix).nodeIdClaim(options.nodeId);
    this.#value = `${options.holderName} ${randomBytes(8).toString('hex')}`;
    this.#renew = defineScript(modules.redis, 'fuegoNodeIdRenew', RENEW_LUA);
    this.#release = defineScript(modules.redis, 'fuegoNodeIdRelease', RELEASE_LUA);
  }

  /** Takes the node id, waiting for a dead holder's claim to run out; throws NODE_ID_IN_USE if a live process keeps it. */
  static async acquire(options: NodeIdClaimOptions, modules: NodeIdClaimModules): Promise<NodeIdClaim> {
    const claim = new NodeIdClaim(options, modules);
    const waitMs = options.waitMs ?? options.ttlMs + options.renewIntervalMs;
    const deadline = Date.now() + waitMs;
    let holder: string | null = null;
    let waitLogged = false;
    for (;;) {
      const taken = await modules.redis.set(claim.#key, claim.#value, 'PX', options.ttlMs, 'NX');
      if (taken === 'OK') break;
      holder = await modules.redis.get(claim.#key);
      if (Date.now() >= deadline) {
        const who = holder === null ? 'another process' : holderNameOf(holder);
        throw new NodeIdClaimError(
          'NODE_ID_IN_USE',
          `pool.nodeId ${options.nodeId} is in use by ${who} on the same Redis; give every stratum process its own node id (stratum.processes N takes N ids from pool.nodeId)`,
          { nodeId: options.nodeId, holder: who },
        );
      }
      if (holder !== null && !waitLogged) {
        waitLogged = true;
        modules.logger.info(
          { nodeId: options.nodeId, holder, waitMs },
          'node id held (by a process that died, or a live one); waiting for the claim to run out',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(10, deadline - Date.now()))));
    }
    claim.#timer = setInterval(() => void claim.#renewOnce(), options.renewIntervalMs);
    claim.#timer.unref();
    return claim;
  }

  async #renewOnce(): Promise<void> {
    const { logger } = this.#modules;
    const { nodeId, ttlMs } = this.#options;
    try {
      const outcome = await this.#renew({ keys: [this.#key], args: [this.#value, String(ttlMs)] });
      if (outcome === 1) {
        this.#conflictLogged = false;
      } else if (outcome === 2) {
        logger.warn({ nodeId }, 'node id claim had run out (Redis away?); taken again');
      } else if (!this.#conflictLogged) {
        this.#conflictLogged = true;
        logger.error(
          { nodeId, holder: String(outcome) },
          'another process took this node id while the claim had run out: extra nonces may repeat; stop one of them',
        );
      }
    } catch (error) {
      logger.warn({ err: error, nodeId }, 'node id claim not renewed');
    }
  }

  /** Stops renewing and gives the node id back (if it is still ours). */
  async release(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#release({ keys: [this.#key], args: [this.#value] }).catch((error: unknown) =>
      this.#modules.logger.warn({ err: error, nodeId: this.#options.nodeId }, 'node id claim not released'),
    );
  }
}

/** The holder name in a claim's value (`<name> <random>`); a value of another shape as it is. */
function holderNameOf(value: string): string {
  const space = value.lastIndexOf(' ');
  return space > 0 ? value.slice(0, space) : value;
}
