import { setImmediate as loopTurn } from 'node:timers/promises';
import { type DecodedAddress, decodeAddress } from '../fuego/address.js';
import type { Logger } from '../log/logger.js';
import type { RecentMinerAddresses } from '../model/recent-miners.js';
import type { AddressCache } from './address-cache.js';

/** Addresses decoded in one go (~4 ms of event loop) before others get a turn. */
const DECODES_PER_TURN = 100;

export interface AddressWarmupOptions {
  /** Miners with a share this recent are remembered (the active-miners index keeps about a day). */
  readonly maxAgeMs: number;
  /** At most this many (the address cache's size: more would only push each other out). */
  readonly maxAddresses: number;
  /** Addresses per Redis read. */
  readonly pageSize: number;
}

export interface AddressWarmupModules {
  readonly recentMiners: RecentMinerAddresses;
  readonly logger: Logger;
  /** The wall clock (share times are epoch ms). */
  readonly clock: () => number;
  /** A monotonic clock for the duration logged. */
  readonly elapsedClock: () => number;
  /** True once the pool is closing: the warm-up stops at its next page. */
  readonly closed: () => boolean;
}

export interface AddressWarmupOutcome {
  /** Addresses remembered as valid. */
  readonly addresses: number;
  /** Stored texts that are no Fuego address (corrupt): not remembered, checked as any new one. */
  readonly skipped: number;
}

/**
 * Fills the address cache with the payout addresses of the miners the pool saw lately, so that
 * after a restart of the pool (or of one stratum process) a farm of many rigs with their own
 * addresses behind one IP logs in at once, instead of drawing on that IP's budget of new
 * addresses (20, then 30 a minute: 500 rigs would wait ~16 minutes).
 *
 * They are remembered as valid without the ed25519 point checks (~1.4 ms each). That trusts the
 * pool's own Redis: an address reaches the active-miners index only with an accepted share, after
 * the login path checked it in full; whoever can write that Redis can credit balances and needs no
 * forged address. The text is still decoded (base58, length, checksum, prefix, payment id), so a
 * corrupt member is skipped and then checked and charged like any address the pool has not seen.
 * Only the budget of logins changes: what is not warmed costs its token as before.
 *
 * Reads are pages of one bounded index, each awaited, and decoding yields to the loop every
 * DECODES_PER_TURN addresses: miners are served meanwhile (10,000 addresses: ~0.5 s of which
 * ~0.4 s CPU, the loop never held more than a few ms; npm run bench:address-warmup). Resolves with what was remembered; a Redis failure
 * rejects (the caller logs it and goes on: the pool works without a warm cache).
 */
export async function warmAddressCache(
  cache: AddressCache,
  options: AddressWarmupOptions,
  modules: AddressWarmupModules,
): Promise<AddressWarmupOutcome> {
  const newestFirst: Array<readonly [string, DecodedAddress]> = [];
  let skipped = 0;
  const pages = modules.recentMiners.pages({
    sinceMs: modules.clock() - options.maxAgeMs,
    maxCount: options.maxAddresses,
    pageSize: options.pageSize,
  });
  // Decoding is ~40 µs an address (base58 and keccak in TypeScript): a page of 500 would hold
  // the loop ~20 ms, so the loop gets a turn after every DECODES_PER_TURN.
  for await (const page of pages) {
    if (modules.closed()) break;
    for (let index = 0; index < page.length; index++) {
      if (index > 0 && index % DECODES_PER_TURN === 0) await loopTurn();
      const text = page[index]!;
      const decoded = decodeTrusted(text);
      if (decoded === undefined) skipped++;
      else newestFirst.push([text, decoded]);
    }
  }
  // The least recent first: the cache forgets its least recently used first, so the miners seen
  // last stay longest when new logins fill it.
  for (let index = newestFirst.length - 1; index >= 0; index--) {
    const [text, decoded] = newestFirst[index]!;
    cache.trust(text, decoded);
  }
  const addresses = newestFirst.length;
  return { addresses, skipped };
}

/** Base58, length, checksum, prefix and payment id; not the keys' curve points. */
function decodeTrusted(text: string): DecodedAddress | undefined {
  try {
    return decodeAddress(text, { checkKeys: false });
  } catch {
    return undefined;
  }
}

/**
 * Runs warmAddressCache in the background of a starting stratum process: it never rejects, logs
 * how many addresses were remembered and how long it took, or the failure (ignored).
 */
export async function warmAddressCacheLogged(
  cache: AddressCache,
  options: AddressWarmupOptions,
  modules: AddressWarmupModules,
): Promise<void> {
  const startedMs = modules.elapsedClock();
  try {
    const outcome = await warmAddressCache(cache, options, modules);
    const ms = Math.round(modules.elapsedClock() - startedMs);
    modules.logger.info({ ...outcome, ms }, 'login addresses warmed from Redis');
  } catch (error) {
    // A pool stopping while it warms closes Redis under it: nothing an operator must hear about.
    const level = modules.closed() ? 'debug' : 'warn';
    modules.logger[level](
      { err: error },
      'login addresses not warmed from Redis: new addresses are checked and charged as they come',
    );
  }
}
