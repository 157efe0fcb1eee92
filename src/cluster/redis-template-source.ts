import type { Redis } from 'ioredis';
import { FuegoPoolError } from '../errors.js';
import type { FastHash } from '../fuego/keccak.js';
import type { Logger } from '../log/logger.js';
import type { ActiveTemplate, TemplateChange, TemplateSource } from '../pool/template-source.js';
import { type ClusterKeys, createClusterKeys } from './cluster-keys.js';
import { fencingEpoch } from './leader-election.js';
import { openSubscriber } from './redis-subscriber.js';
import { blockTemplateOf, parseTemplateMessage, type TemplateMessage } from './template-message.js';

export class RedisTemplateSourceError extends FuegoPoolError<'TEMPLATE_SOURCE_STOPPED'> {}

export interface RedisTemplateSourceOptions {
  readonly keyPrefix: string;
  /**
   * How often `<p>:template:latest` is read besides the subscription: pub/sub drops what is sent
   * while a connection is down or half-open, the key does not. Default 5 s.
   */
  readonly resyncIntervalMs?: number;
  /** `cn_fast_hash` for building jobs from the templates (the native one when available). */
  readonly fastHash?: FastHash;
}

export interface RedisTemplateSourceModules {
  /** Command connection (GET of the latest template). */
  readonly redis: Redis;
  readonly logger: Logger;
  readonly clock?: () => number;
}

export interface RedisTemplateSourceStatus {
  readonly healthy: boolean;
  readonly templateAgeMs: number | undefined;
  readonly height: number | undefined;
  /** Fencing token of the leader whose template is served. */
  readonly leaderToken: string | undefined;
  readonly subscribed: boolean;
}

interface Received {
  readonly active: ActiveTemplate;
  readonly message: TemplateMessage;
  readonly contentKey: string;
}

/**
 * Stratum-node template source: the leader's templates from Redis pub/sub, rebuilt here with
 * parseBlockTemplate (the same BlockTemplate the leader has), numbered by this process. The tip
 * moved ('new-block') when the previous block or height differs from the served template; else
 * it is a 'refresh'. Through Redis or leader outages it keeps serving the last template; the
 * subscription comes back by itself, and on every (re)connect and every `resyncIntervalMs` the
 * latest template is read from its key, so nothing sent during an outage is missed.
 */
export class RedisTemplateSource implements TemplateSource {
  readonly keys: ClusterKeys;
  readonly #options: RedisTemplateSourceOptions;
  readonly #modules: RedisTemplateSourceModules;
  readonly #clock: () => number;
  readonly #listeners = new Set<(template: ActiveTemplate, change: TemplateChange) => void>();
  #received: Received | undefined;
  /** When the served template came, or the leader last sent it again live (it is still current). */
  #confirmedAtMs = 0;
  #nextId = 1;
  /** Live messages received so far: tells a snapshot read that a live message overtook it. */
  #liveMessages = 0;
  #subscriber: Redis | undefined;
  #resyncTimer: NodeJS.Timeout | undefined;
  #subscribed = false;
  #stopped = false;

  constructor(options: RedisTemplateSourceOptions, modules: RedisTemplateSourceModules) {
    this.#options = options;
    this.#modules = modules;
    this.#clock = modules.clock ?? Date.now;
    this.keys = createClusterKeys(options.keyPrefix);
  }

  current(): ActiveTemplate | undefined {
    return this.#received?.active;
  }

  onTemplate(listener: (template: ActiveTemplate, change: TemplateChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  status(): RedisTemplateSourceStatus {
    const active = this.#received?.active;
    return {
      healthy: this.#subscribed && active !== undefined,
      templateAgeMs: active === undefined ? undefined : this.#clock() - this.#confirmedAtMs,
      height: active?.height,
      leaderToken: this.#received?.message.token,
      subscribed: this.#subscribed,
    };
  }

  /**
   * Subscribes, reads the latest template, and resolves with the first template (waiting for a
   * leader to publish one if there is none yet); then keeps following until `stop()`.
   */
  async start(): Promise<ActiveTemplate> {
    const subscriber = await openSubscriber(
      this.#modules.redis,
      'fuego-pool-templates',
      this.#modules.logger,
    );
    this.#subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.keys.templateChannel) return;
      this.#liveMessages += 1;
      this.#accept(text, 'live');
    });
    subscriber.on('ready', () => {
      this.#subscribed = true;
      void this.resync();
    });
    subscriber.on('close', () => {
      this.#subscribed = false;
    });
    await subscriber.subscribe(this.keys.templateChannel);
    this.#subscribed = true;
    await this.resync();
    this.#scheduleResync();
    const first = this.current();
    if (first !== undefined) return first;
    this.#modules.logger.info('waiting for the leader to publish a block template');
    return await new Promise<ActiveTemplate>((resolve, reject) => {
      const off = this.onTemplate((active) => {
        off();
        clearInterval(watch);
        resolve(active);
      });
      const watch = setInterval(() => {
        if (!this.#stopped) return;
        off();
        clearInterval(watch);
        reject(new RedisTemplateSourceError('TEMPLATE_SOURCE_STOPPED', 'stopped before the first template'));
      }, 100);
    });
  }

  /** Reads `<p>:template:latest` and takes it unless a newer one came live meanwhile. Never throws. */
  async resync(): Promise<void> {
    try {
      const liveBefore = this.#liveMessages;
      const text = await this.#modules.redis.get(this.keys.templateLatest);
      if (text !== null)
        this.#accept(text, this.#liveMessages === liveBefore ? 'snapshot' : 'raced-snapshot');
    } catch (error) {
      this.#modules.logger.debug({ err: error }, 'latest template not readable; serving the last one');
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#resyncTimer);
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    this.#subscribed = false;
    if (subscriber !== undefined) subscriber.disconnect();
  }

  /**
   * Live messages arrive in the order the (fenced) script published them, so each is taken unless
   * it repeats the served template. The key holds the last of them, so a snapshot is taken too,
   * unless a live message came while it was read ('raced-snapshot'): then only when newer by
   * (leader epoch, leader sequence). Epochs alone cannot order snapshots: they go back when Redis
   * loses its last writes (a lagging replica promoted, a restart from an older snapshot).
   */
  #accept(text: string, via: 'live' | 'snapshot' | 'raced-snapshot'): void {
    if (this.#stopped) return;
    const message = parseTemplateMessage(text);
    if (message === null) {
      this.#modules.logger.warn({ via }, 'ignored a malformed template message');
      return;
    }
    const previous = this.#received;
    const contentKey = `${message.reservedOffset}/${message.reserveSize}/${message.parentStyle}/${message.blob}`;
    if (previous !== undefined) {
      if (contentKey === previous.contentKey) {
        // Same template (the leader confirming it, or a new leader's first): keep the jobs, note
        // who leads. Only a live one says the leader still sends it: the key keeps the last for good.
        this.#received = { ...previous, message };
        if (via === 'live') this.#confirmedAtMs = this.#clock();
        return;
      }
      if (via === 'raced-snapshot' && !isNewer(message, previous.message)) return;
    }
    let template: ReturnType<typeof blockTemplateOf>;
    try {
      template = blockTemplateOf(message, this.#options.fastHash);
    } catch (error) {
      this.#modules.logger.warn(
        { err: error, height: message.height },
        'ignored an invalid template message',
      );
      return;
    }
    const active: ActiveTemplate = {
      id: this.#nextId++,
      template,
      height: message.height,
      networkDifficulty: BigInt(message.difficulty),
      prevHash: message.prevHash,
      receivedAtMs: this.#clock(),
    };
    const change: TemplateChange =
      previous === undefined ||
      previous.active.prevHash !== active.prevHash ||
      previous.active.height !== active.height
        ? 'new-block'
        : 'refresh';
    this.#received = { active, message, contentKey };
    this.#confirmedAtMs = active.receivedAtMs;
    this.#modules.logger.info(
      { height: active.height, change, templateId: active.id, leaderSeq: message.seq, via },
      'new block template from the leader',
    );
    for (const listener of this.#listeners) {
      try {
        listener(active, change);
      } catch (error) {
        this.#modules.logger.error({ err: error }, 'template listener failed');
      }
    }
  }

  #scheduleResync(): void {
    if (this.#stopped) return;
    this.#resyncTimer = setTimeout(() => {
      void this.resync().finally(() => this.#scheduleResync());
    }, this.#options.resyncIntervalMs ?? 5_000);
    this.#resyncTimer.unref?.();
  }
}

/** (epoch, seq) order; tokens that are not `<epoch>.<hex>` (no election) compare by seq only. */
function isNewer(candidate: TemplateMessage, served: TemplateMessage): boolean {
  const a = fencingEpoch(candidate.token) ?? 0;
  const b = fencingEpoch(served.token) ?? 0;
  if (a !== b) return a > b;
  return candidate.seq > served.seq;
}
