import type { ExplorerLinks } from '../../config/explorer-schema.js';
import type { Burst, ChatMessage } from './chat-message.js';

/** What the JSON webhook may add beyond the default fields. */
export interface WebhookPayloadOptions {
  readonly includeAddresses: boolean;
}

export interface ChatContext {
  /** The pool's explorer link templates (`api.explorer`); absent or null: no links. */
  readonly explorer?: ExplorerLinks;
}

/**
 * How one event is told: as the JSON webhook's `data` and as a chat message. `data` is built
 * field by field from an explicit list, never by spreading the payload, so a field added to an
 * event later (an IP, a worker name) cannot leak unnoticed; the chat message likewise.
 */
export interface EventFormat<P> {
  data(payload: P, options: WebhookPayloadOptions): Record<string, unknown>;
  /** One event, or a burst of them within a debounce window, as one message. */
  chat(burst: Burst<P>, context: ChatContext): ChatMessage;
}

/** A burst of exactly one event (no debouncing, or nothing else arrived in the window). */
export function isSingle<P>(burst: Burst<P>): burst is Burst<P> & { readonly payloads: readonly [P] } {
  return burst.payloads.length === 1 && burst.omitted === 0;
}

/** How many events a burst stands for (kept and omitted). */
export function burstSize(burst: Burst<unknown>): number {
  return burst.payloads.length + burst.omitted;
}

/** The message's timestamp: the last event's, for events that carry one. */
export function lastTimestamp(burst: Burst<{ readonly timestampMs: number }>): { timestampMs?: number } {
  const timestampMs = burst.payloads.at(-1)?.timestampMs;
  return timestampMs === undefined ? {} : { timestampMs };
}
