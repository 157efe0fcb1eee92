import type { Ban, BanChange, BanEntry, BanRegistry } from '../../pool/ban-registry.js';
import { LocalBans, type LocalBansOptions } from '../../pool/local-bans.js';
import type { ChildMessage } from './child-messages.js';

/**
 * A stratum child's ban registry: its parent's (a RedisBanRegistry), reached over IPC. The bans the
 * parent holds arrive as `adopt-ban` and `unban` (all of them after `start`, then each change,
 * also while the child waits for its first template); a ban or unban made here is in force here at once and sent to the parent, which puts
 * it in force for the other children and the other hosts.
 */
export class ParentBanRegistry implements BanRegistry {
  readonly #local: LocalBans;
  readonly #send: (message: ChildMessage) => void;

  constructor(
    options: LocalBansOptions,
    modules: {
      /** To the parent; a message lost with the channel is lost with the process anyway. */
      readonly send: (message: ChildMessage) => void;
      readonly onListenerError: (error: unknown) => void;
      readonly clock?: () => number;
    },
  ) {
    this.#local = new LocalBans(options, {
      onListenerError: modules.onListenerError,
      ...(modules.clock ? { clock: modules.clock } : {}),
    });
    this.#send = modules.send;
  }

  /** The parent's `adopt-ban`. */
  adopt(ban: Ban): void {
    this.#local.adopt(ban);
  }

  /** The parent's `unban`. */
  lift(ip: string): void {
    this.#local.remove(ip);
  }

  async list(): Promise<BanEntry[]> {
    return this.#local.list();
  }

  async ban(ban: Ban): Promise<BanEntry> {
    const entry = this.#local.put(ban);
    this.#send({ kind: 'banned', entry });
    return entry;
  }

  async unban(ip: string): Promise<boolean> {
    const key = this.#local.keyOf(ip);
    const wasBanned = this.#local.remove(key);
    this.#send({ kind: 'unban', ip: key });
    return wasBanned;
  }

  isBanned(peerKey: string): boolean {
    return this.#local.isBanned(peerKey);
  }

  onChange(listener: (change: BanChange) => void): () => void {
    return this.#local.onChange(listener);
  }
}
