import { monotonicMs } from '../monotonic-clock.js';
import type { AliasLookup } from '../rpc/daemon-schemas.js';
import { RpcError } from '../rpc/rpc-error.js';

export interface AliasByAddressOptions {
  readonly ttlMs: number;
  readonly maxEntries: number;
  /**
   * How long a page waits for the daemon's answer before it shows no alias (default 1 s); the
   * answer is still cached when it comes. A busy fuegod answers after the client's timeout and
   * retries (tens of seconds), and the page has everything else it shows without it.
   */
  readonly waitMs?: number;
}

const DEFAULT_WAIT_MS = 1_000;

/**
 * address → registered alias for the miner page, through the daemon's optional
 * `/get_alias_by_address`, cached (aliases change rarely; the page must not ask the daemon per
 * request). A daemon without the endpoint (real 1.9.3) means "no alias" for everyone, asked again
 * only after the TTL; any other failure is "unknown now" and not cached. One question per address
 * is in flight at a time, and a page waits for it at most `waitMs`.
 */
export function cachedAliasByAddress(
  daemon: { getAliasByAddress(address: string): Promise<AliasLookup> },
  options: AliasByAddressOptions,
  /** Milliseconds that only go forward: a TTL must not follow a wall-clock step. */
  elapsedClock: () => number = monotonicMs,
): (address: string) => Promise<string | null> {
  const cache = new Map<string, { alias: string | null; untilMs: number }>();
  const asking = new Map<string, Promise<string | null>>();
  let unsupportedUntilMs = 0;

  const ask = async (address: string): Promise<string | null> => {
    try {
      const lookup = await daemon.getAliasByAddress(address);
      const alias = lookup.found && lookup.alias !== '' ? lookup.alias : null;
      if (cache.size >= options.maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(address, { alias, untilMs: elapsedClock() + options.ttlMs });
      return alias;
    } catch (error) {
      if (error instanceof RpcError && error.code === 'RPC_NOT_SUPPORTED')
        unsupportedUntilMs = elapsedClock() + options.ttlMs;
      return null;
    }
  };

  return async (address) => {
    const now = elapsedClock();
    if (now < unsupportedUntilMs) return null;
    const hit = cache.get(address);
    if (hit && hit.untilMs > now) return hit.alias;
    let answer = asking.get(address);
    if (answer === undefined) {
      answer = ask(address).finally(() => asking.delete(address));
      asking.set(address, answer);
    }
    return atMost(answer, options.waitMs ?? DEFAULT_WAIT_MS);
  };
}

/** `answer`, or null once `waitMs` passed without it. */
async function atMost(answer: Promise<string | null>, waitMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), waitMs);
    timer.unref();
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}
