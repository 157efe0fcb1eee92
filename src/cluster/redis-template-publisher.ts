import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import type { ActiveTemplate, TemplateChange, TemplateSource } from '../pool/template-source.js';
import { defineScript, type ScriptRunner } from '../store/scripts/define-script.js';
import { type ClusterKeys, createClusterKeys } from './cluster-keys.js';
import { templateMessageOf } from './template-message.js';

/**
 * publish_template: stores the message as the latest and publishes it, only while the caller
 * leads, so a leader that lost its lease can neither overwrite the latest template nor send one.
 * KEYS: 1 `<p>:leader:token`, 2 `<p>:template:latest`.
 * ARGV: 1 fencing token ("" = no election, e.g. a test), 2 message JSON, 3 channel.
 * Returns 1, or 0 when fenced.
 */
const PUBLISH_TEMPLATE_LUA = `
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1
`;

export type PublishOutcome = 'published' | 'fenced' | 'not-leader';

export interface RedisTemplatePublisherModules {
  readonly redis: Redis;
  /** The election's token; null: not leading (nothing is sent); "": no election. */
  readonly fencingToken: () => string | null;
  readonly logger: Logger;
  /** Wait before re-sending a template Redis did not take; default 500 ms. */
  readonly retryDelayMs?: number;
}

/**
 * Leader side of the template relay: every template of the leader's daemon source goes to
 * `<p>:templates` and `<p>:template:latest`. A publish Redis did not take is retried (only the
 * newest template; an older one is of no use) until it goes through or a newer one replaces it.
 */
export class RedisTemplatePublisher {
  readonly keys: ClusterKeys;
  readonly #modules: RedisTemplatePublisherModules;
  readonly #publish: ScriptRunner;
  #latest: { active: ActiveTemplate; change: TemplateChange } | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: { readonly keyPrefix: string }, modules: RedisTemplatePublisherModules) {
    this.keys = createClusterKeys(options.keyPrefix);
    this.#modules = modules;
    this.#publish = defineScript(modules.redis, 'fuegoPublishTemplate', PUBLISH_TEMPLATE_LUA);
  }

  /** Publishes the source's current template now and each one it emits; returns the detach function. */
  attach(source: TemplateSource): () => void {
    const off = source.onTemplate((active, change) => this.#send(active, change));
    const current = source.current();
    if (current !== undefined) this.#send(current, 'new-block');
    return off;
  }

  /** One fenced publish (attach() calls it and retries failures). */
  async publish(active: ActiveTemplate, change: TemplateChange): Promise<PublishOutcome> {
    const token = this.#modules.fencingToken();
    if (token === null) return 'not-leader';
    const message = JSON.stringify(templateMessageOf(active, change, token));
    const reply = await this.#publish({
      keys: [this.keys.leaderToken, this.keys.templateLatest],
      args: [token, message, this.keys.templateChannel],
    });
    return Number(reply) === 1 ? 'published' : 'fenced';
  }

  /**
   * Sends the served template again when the daemon still gives it: a stratum node takes a repeat
   * as the leader's word that its template is current (its age starts over) and changes no job.
   */
  confirm(active: ActiveTemplate): void {
    this.#send(active, 'refresh');
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
  }

  #send(active: ActiveTemplate, change: TemplateChange): void {
    if (this.#closed) return;
    // Receivers tell a new tip from a refresh by prevHash, so `change` is informative only.
    this.#latest = { active, change };
    clearTimeout(this.#retryTimer);
    this.publish(active, change).then(
      (outcome) => {
        if (this.#latest?.active === active) this.#latest = undefined;
        if (outcome !== 'published') {
          this.#modules.logger.warn(
            { outcome, templateId: active.id },
            'template not published: not the leader',
          );
        }
      },
      (error: unknown) => {
        if (this.#latest?.active !== active || this.#closed) return;
        this.#modules.logger.warn({ err: error, templateId: active.id }, 'template publish failed; retrying');
        this.#retryTimer = setTimeout(() => {
          const latest = this.#latest;
          if (latest?.active === active) {
            this.#latest = undefined;
            this.#send(latest.active, latest.change);
          }
        }, this.#modules.retryDelayMs ?? 500);
        this.#retryTimer.unref?.();
      },
    );
  }
}
