import cluster from 'node:cluster';
import type { PoolConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { peerKey, unmappedIp } from '../pool/peer-key.js';
import { FloodDrops } from '../servers/flood-drop/flood-drops.js';
import { type ListenerFilter, loadListenerFilter } from '../servers/flood-drop/listener-filter.js';

/**
 * The kernel drops of flooding peers (`floodDrop`) for the stratum or the API server (each its
 * own: a peer flooding one port keeps the other), or undefined when they are off or cannot work
 * here; then floods are refused in Node as before, which the log says once at start so an
 * operator knows to cap new connections in the firewall instead. With `stratum.processes` > 1
 * the pool process calls this for the stratum ports (PrimaryFloodDrops), not its children.
 */
export function startFloodDrops(
  config: Readonly<PoolConfig>,
  logger: Logger,
  server: 'stratum' | 'api',
  filter: ListenerFilter | { unavailable: string } = loadFilter(),
): FloodDrops | undefined {
  const options = config.floodDrop;
  // A stratum child process has no listening socket of its own (Node cluster's primary, the pool
  // process, accepts for it): it reports its refusals there (ChildRefusalReports), and the pool
  // process drops on the sockets it holds (PrimaryFloodDrops), saying so if it cannot.
  if (options.refusals === 0 || (server === 'stratum' && cluster.isWorker)) return undefined;
  if ('unavailable' in filter) {
    logger.info(
      { server, reason: filter.unavailable },
      'kernel drops of flooding peers are off; they are refused in Node',
    );
    return undefined;
  }
  return new FloodDrops(
    {
      refusals: options.refusals,
      refusalsPerSec: options.refusalsPerSec,
      dropMs: options.dropSeconds * 1000,
      maxDropMs: options.maxDropSeconds * 1000,
      maxSources: 256,
      exemptPeers: exemptPeersOf(config, server),
    },
    filter,
    logger.child({ module: 'flood-drop', server }),
  );
}

/**
 * The peers never dropped: the stratum bans' exempt addresses (the API's exempt ones are never
 * refused), each as given and as the peer key it falls under (an IPv6 address: its network).
 */
function exemptPeersOf(config: Readonly<PoolConfig>, server: 'stratum' | 'api'): ReadonlySet<string> {
  const listed = server === 'stratum' ? config.stratum.bans.exemptIps : config.api.rateLimit.exemptIps;
  const prefix = config.stratum.ipv6PrefixLength;
  return new Set(listed.flatMap((ip) => [ip, peerKey(unmappedIp(ip), prefix)]));
}

function loadFilter(): ListenerFilter | { unavailable: string } {
  const loaded = loadListenerFilter();
  return 'filter' in loaded ? loaded.filter : loaded;
}
