import type { ExplorerLinks } from '../../config/explorer-schema.js';
import { formatAtomic } from '../../fuego/money.js';

/**
 * A notification for people, independent of the chat service: Discord and Telegram render it
 * (discord-format.ts, telegram-format.ts), each within its own limits. Values are plain text;
 * the renderers escape them.
 */
export interface ChatMessage {
  /** Short label: "Block found", "3 payments sent". */
  readonly title: string;
  /** One sentence, what a phone notification shows: "Block 812345 found (PPLNS)". */
  readonly headline: string;
  readonly tone: ChatTone;
  readonly fields: readonly ChatField[];
  /** When it happened (the last event of a burst); absent: when it is sent. */
  readonly timestampMs?: number;
}

export type ChatTone = 'good' | 'bad' | 'neutral';

export interface ChatField {
  readonly name: string;
  readonly value: string;
  /** A link for the value (explorer page). */
  readonly url?: string;
  /** Shown as code (hashes). */
  readonly code?: boolean;
  /** Side by side with its neighbours where the service can (Discord). */
  readonly inline?: boolean;
}

/**
 * Events of one kind that arrived within a target's debounce window, oldest first, and how many
 * more arrived beyond what is kept (a burst holds at most MAX_BURST_EVENTS).
 */
export interface Burst<P> {
  readonly payloads: readonly P[];
  readonly omitted: number;
}

/** Events kept per burst; a longer burst is summarised by count only for the rest. */
export const MAX_BURST_EVENTS = 1_000;

/** Events of a burst listed one by one in a message; the others are counted in a last field. */
export const MAX_LISTED_EVENTS = 10;

/** An amount in XFG with all 7 decimals (exact, from atomic units): "12.3456789 XFG". */
export function xfg(amountAtomic: bigint): string {
  return `${formatAtomic(amountAtomic)} XFG`;
}

/** A 64-hex hash as its first and last 8 characters: "aaaaaaaa…aaaaaaaa". */
export function shortHash(hash: string): string {
  return hash.length <= 20 ? hash : `${hash.slice(0, 8)}…${hash.slice(-8)}`;
}

/**
 * A miner address as its first 8 and last 4 characters: "fireAbCd…wxyz". Enough for its owner
 * to recognise it in a chat, short enough not to put the whole address in a channel.
 */
export function shortAddress(address: string): string {
  return address.length <= 16 ? address : `${address.slice(0, 8)}…${address.slice(-4)}`;
}

/** `text` cut to at most `max` characters, the cut marked with "…". */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** "1 block" / "3 blocks". */
export function counted(count: number, singular: string, plural: string): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/** Heights as a short list: "812345, 812346 and 812350" (the first few, then "and N more"). */
export function heightList(heights: readonly number[], omitted: number): string {
  const shown = heights.slice(0, MAX_LISTED_EVENTS).map(String);
  const more = heights.length - shown.length + omitted;
  if (more > 0) return `${shown.join(', ')} and ${more} more`;
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/** The field saying how many events of a burst are not listed; none when all are. */
export function moreField(burst: Burst<unknown>, what: string): ChatField[] {
  const more = burst.payloads.length - MAX_LISTED_EVENTS + burst.omitted;
  return more > 0 ? [{ name: 'More', value: `${counted(more, what, `${what}s`)} not listed` }] : [];
}

/** Explorer page of a block or transaction, when the pool's explorer config has a template. */
export function explorerLink(
  links: ExplorerLinks | undefined,
  kind: 'block' | 'transaction',
  hash: string,
): string | undefined {
  const template = links?.[kind];
  if (template === null || template === undefined) return undefined;
  return template.replaceAll('{hash}', encodeURIComponent(hash));
}

/** A hash field: shortened, as code, linked to the explorer when a template is configured. */
export function hashField(name: string, hash: string, link: string | undefined, inline = false): ChatField {
  return { name, value: shortHash(hash), code: true, inline, ...(link === undefined ? {} : { url: link }) };
}
