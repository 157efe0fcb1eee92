import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import type { PoolEventBus, PoolEventMap, PoolEventName } from '../pool/events.js';
import { type ClusterKeys, createClusterKeys } from './cluster-keys.js';
import { openSubscriber } from './redis-subscriber.js';

/**
 * Events relayed between processes. Not 'network-block': every process that needs it sees the
 * daemon itself (the leader's template source, each API's network poller), so a relayed copy
 * would only repeat it. Not 'worker-offline': the leader publishes it for its own notifier.
 */
export const RELAYED_EVENTS: readonly PoolEventName[] = Object.freeze([
  'block-found',
  'block-refused',
  'block-confirmed',
  'block-orphaned',
  'block-orphaned-after-credit',
  'block-orphan-settled',
  'block-orphan-restored',
  'block-orphan-restore-undone',
  'block-orphan-back-uncredited',
  'payment-sent',
  'payment-failed',
  'payout-unknown-to-wallet',
  'payout-unknown-to-wallet-resolved',
  'payout-unmined',
]);

const RELAYED = new Set<string>(RELAYED_EVENTS);

interface Envelope {
  readonly origin: string;
  readonly name: PoolEventName;
  readonly payload: unknown;
}

/** JSON with bigints as `{"$bigint": "<decimal>"}` (payload amounts are bigint). */
export function encodeEvent(envelope: Envelope): string {
  return JSON.stringify(envelope, (_key, value: unknown) =>
    typeof value === 'bigint' ? { $bigint: value.toString() } : value,
  );
}

export function decodeEvent(text: string): Envelope | null {
  try {
    const parsed = JSON.parse(text, (_key, value: unknown) => {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const big = (value as { $bigint?: unknown }).$bigint;
        if (typeof big === 'string' && /^-?\d+$/.test(big) && Object.keys(value).length === 1)
          return BigInt(big);
      }
      return value;
    }) as Partial<Envelope> | null;
    if (parsed === null || typeof parsed !== 'object') return null;
    if (typeof parsed.origin !== 'string' || typeof parsed.name !== 'string' || !RELAYED.has(parsed.name))
      return null;
    if (parsed.payload === null || typeof parsed.payload !== 'object') return null;
    return parsed as Envelope;
  } catch {
    return null;
  }
}

/**
 * Publishes one relayed event from a process that runs no relay (a CLI command, e.g. `payout
 * resolve`): every pool process delivers it to its local subscribers, and the lease holder's
 * notifier sends it. Best effort, like the relay: nobody listening, nothing is sent.
 */
export async function publishRelayedEvent<K extends PoolEventName>(
  redis: Redis,
  keyPrefix: string,
  name: K,
  payload: PoolEventMap[K],
): Promise<void> {
  if (!RELAYED.has(name)) throw new Error(`${name} is not relayed between processes`);
  const envelope = encodeEvent({ origin: `cli-${randomUUID()}`, name, payload });
  await redis.publish(createClusterKeys(keyPrefix).eventChannel, envelope);
}

/**
 * The event bus across processes: `bus.publish` delivers locally and sends relayed events to
 * `<p>:events`; events from other processes are delivered to local subscribers (not sent on
 * again). Best effort, like the bus itself: a lost relay message costs a live-feed line, never
 * money (every consumer that matters reads Redis state).
 */
export class RedisEventRelay {
  readonly keys: ClusterKeys;
  readonly bus: PoolEventBus;
  readonly #origin: string;
  readonly #modules: { readonly redis: Redis; readonly local: PoolEventBus; readonly logger: Logger };
  #subscriber: Redis | undefined;

  constructor(
    options: { readonly keyPrefix: string; readonly origin: string },
    modules: { readonly redis: Redis; readonly local: PoolEventBus; readonly logger: Logger },
  ) {
    this.keys = createClusterKeys(options.keyPrefix);
    this.#origin = options.origin;
    this.#modules = modules;
    const { local, redis, logger } = modules;
    this.bus = {
      publish: <K extends PoolEventName>(name: K, payload: PoolEventMap[K]) => {
        local.publish(name, payload);
        if (!RELAYED.has(name)) return;
        redis
          .publish(this.keys.eventChannel, encodeEvent({ origin: this.#origin, name, payload }))
          .catch((error: unknown) => logger.warn({ err: error, event: name }, 'event not relayed'));
      },
      subscribe: (name, listener) => local.subscribe(name, listener),
    };
  }

  async start(): Promise<void> {
    const subscriber = await openSubscriber(this.#modules.redis, 'fuego-pool-events', this.#modules.logger);
    this.#subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.keys.eventChannel) return;
      const envelope = decodeEvent(text);
      if (envelope === null) {
        this.#modules.logger.warn('ignored a malformed relayed event');
        return;
      }
      if (envelope.origin === this.#origin) return;
      this.#modules.local.publish(envelope.name, envelope.payload as PoolEventMap[typeof envelope.name]);
    });
    await subscriber.subscribe(this.keys.eventChannel);
  }

  stop(): void {
    this.#subscriber?.disconnect();
    this.#subscriber = undefined;
  }
}
