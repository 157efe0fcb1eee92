import type { PoolEventMap } from '../../pool/events.js';
import { counted, MAX_LISTED_EVENTS, moreField, shortAddress } from './chat-message.js';
import { burstSize, type EventFormat, isSingle } from './event-format.js';

type Offline = PoolEventMap['worker-offline'];

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** A time of day as "14:05 UTC" (chat readers are in any time zone; the embed has the full time). */
function utcTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

/** The offline time as people say it: "10 min", "2 h" (api.workerOfflineMs is 3 min to 24 h). */
function duration(ms: number): string {
  if (ms >= 2 * HOUR_MS && ms % HOUR_MS === 0) return `${ms / HOUR_MS} h`;
  if (ms % MINUTE_MS === 0) return `${ms / MINUTE_MS} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** When the worker crossed the offline time: the event's moment. */
function offlineAtMs(p: Offline): number {
  return p.lastShareMs + p.offlineAfterMs;
}

/** The burst's worker names, comma separated: the first MAX_LISTED_EVENTS, then how many more. */
function workerList(burst: { readonly payloads: readonly Offline[]; readonly omitted: number }): string {
  const shown = burst.payloads.slice(0, MAX_LISTED_EVENTS).map((p) => p.worker);
  const more = burst.payloads.length - shown.length + burst.omitted;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/**
 * `worker-offline`: sent only to targets that list it (a farm owner's or operator's choice), so
 * the JSON carries the address and the worker; a chat message shows the address shortened.
 */
export const WORKER_OFFLINE_FORMAT: EventFormat<Offline> = {
  data: (p) => ({
    address: p.address,
    worker: p.worker,
    lastShareMs: p.lastShareMs,
    offlineAfterSeconds: p.offlineAfterMs / 1000,
  }),
  chat: (burst) => {
    const last = burst.payloads.at(-1);
    const when = last === undefined ? {} : { timestampMs: offlineAtMs(last) };
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Worker offline',
        headline: `Worker ${p.worker} offline: no share since ${utcTime(p.lastShareMs)} (${duration(p.offlineAfterMs)})`,
        tone: 'bad',
        fields: [
          { name: 'Worker', value: p.worker, inline: true },
          { name: 'Address', value: shortAddress(p.address), code: true, inline: true },
          { name: 'Last share', value: utcTime(p.lastShareMs), inline: true },
        ],
        ...when,
      };
    }
    const what = counted(burstSize(burst), 'worker', 'workers');
    return {
      title: `${what} offline`,
      headline: `${what} offline: ${workerList(burst)}`,
      tone: 'bad',
      fields: [
        ...burst.payloads.slice(0, MAX_LISTED_EVENTS).map((p) => ({
          name: p.worker,
          value: `${shortAddress(p.address)}, last share ${utcTime(p.lastShareMs)}`,
        })),
        ...moreField(burst, 'worker'),
      ],
      ...when,
    };
  },
};
