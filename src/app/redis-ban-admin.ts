import type { RedisBanList } from '../cluster/redis-ban-list.js';
import { manualBanEntry } from '../pool/ban-policy.js';
import { peerKey } from '../pool/peer-key.js';
import type { ControlBans } from '../servers/control/control-handler.js';

/**
 * `fuego-pool bans|ban|unban` on a node without the stratum role: the pool's ban list in Redis.
 * A ban is stored and announced, and every stratum host applies it; keys are made as the stratum
 * hosts make them (an IPv6 address stands for its network).
 */
export function redisBanAdmin(
  list: Pick<RedisBanList, 'storeBan' | 'storeUnban' | 'runningBans'>,
  options: { readonly ipv6PrefixLength: number; readonly clock?: () => number },
): ControlBans {
  const clock = options.clock ?? Date.now;
  const keyOf = (ip: string) => peerKey(ip, options.ipv6PrefixLength);
  return {
    listBans: () => list.runningBans(),
    async ban(ip, seconds, reason = 'manual') {
      const entry = manualBanEntry(keyOf(ip), seconds, reason, clock());
      await list.storeBan(entry);
      return entry;
    },
    async unban(ip) {
      const key = keyOf(ip);
      const wasBanned = (await list.runningBans()).some((entry) => entry.ip === key);
      await list.storeUnban(key);
      return wasBanned;
    },
  };
}
