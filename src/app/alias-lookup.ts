import type { AliasLookup } from '../rpc/daemon-schemas.js';
import { RpcError } from '../rpc/rpc-error.js';

export interface AliasByAddressOptions {
  readonly ttlMs: number;
  readonly maxEntries: number;
}

/**
 * address → registered alias for the miner page, through the daemon's optional
 * `/get_alias_by_address`, cached (aliases change rarely; the page must not ask the daemon per
 * request). A daemon without the endpoint (real 1.9.3) means "no alias" for everyone, asked again
 * only after the TTL; any other failure is "unknown now" and not cached.
 */
export function cachedAliasByAddress(
  daemon: { getAliasByAddress(address: string): Promise<AliasLookup> },
  options: AliasByAddressOptions,
  clock: () => number = Date.now,
): (address: string) => Promise<string | null> {
  const cache = new Map<string, { alias: string | null; untilMs: number }>();
  let unsupportedUntilMs = 0;
  return async (address) => {
    const now = clock();
    if (now < unsupportedUntilMs) return null;
    const hit = cache.get(address);
    if (hit && hit.untilMs > now) return hit.alias;
    try {
      const lookup = await daemon.getAliasByAddress(address);
      const alias = lookup.found && lookup.alias !== '' ? lookup.alias : null;
      if (cache.size >= options.maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(address, { alias, untilMs: now + options.ttlMs });
      return alias;
    } catch (error) {
      if (error instanceof RpcError && error.code === 'RPC_NOT_SUPPORTED')
        unsupportedUntilMs = now + options.ttlMs;
      return null;
    }
  };
}
