import type { Logger } from '../../log/logger.js';
import type { DaemonClient } from '../../rpc/daemon-client.js';
import type { DaemonInfo } from '../../rpc/daemon-schemas.js';

/**
 * Why the daemon's chain may not decide blocks: 'daemon-isolated' (no peer connection: the chain
 * it reports may be a private fork only the pool extends), 'daemon-syncing' (its peers know a
 * longer chain it has not caught up with, which may replace its blocks).
 */
export type DaemonChainDistrust = 'daemon-isolated' | 'daemon-syncing';

/**
 * Blocks the peers' chain may be ahead of the daemon's before it counts as syncing: a synced
 * fuegod hears of a new block from a peer a moment before it has added it.
 */
export const SYNCING_TOLERANCE_BLOCKS = 2;

export type DaemonChainFacts = Pick<
  DaemonInfo,
  'height' | 'last_known_block_index' | 'outgoing_connections_count' | 'incoming_connections_count'
>;

export type DaemonChainVerdict =
  | { readonly trusted: true }
  | { readonly trusted: false; readonly reason: DaemonChainDistrust; readonly detail: string };

/**
 * Judges getinfo: no peers -> isolated; the highest block known from peers (last_known_block_index
 * + 1 is a height) more than SYNCING_TOLERANCE_BLOCKS above the daemon's height -> syncing. A known
 * height below the daemon's says nothing (an isolated fuegod 1.9.3 reports height - 2 as the index).
 */
export function judgeDaemonChain(info: DaemonChainFacts): DaemonChainVerdict {
  const peers = info.outgoing_connections_count + info.incoming_connections_count;
  if (peers === 0) {
    return { trusted: false, reason: 'daemon-isolated', detail: 'the daemon has no peer connections' };
  }
  const knownHeight = info.last_known_block_index + 1;
  if (knownHeight - info.height > SYNCING_TOLERANCE_BLOCKS) {
    return {
      trusted: false,
      reason: 'daemon-syncing',
      detail: `the daemon is at height ${info.height}, its peers know height ${knownHeight}`,
    };
  }
  return { trusted: true };
}

/** Why the chain is not trusted, in words (null: it is), for /health. */
export function daemonChainDistrustDetail(info: DaemonChainFacts): string | null {
  const verdict = judgeDaemonChain(info);
  return verdict.trusted ? null : verdict.detail;
}

export interface DaemonChainTrustModules {
  readonly daemon: Pick<DaemonClient, 'getInfo'>;
  readonly logger: Logger;
}

/**
 * Asks the daemon before each unlock run whether its chain can decide money: credits and orphans
 * made on an isolated or syncing daemon's chain may be undone when it rejoins the network (blocks
 * credited and paid, then gone). Logs a warning when the chain stops being trusted (once per
 * reason) and an info line when it is trusted again.
 */
export class DaemonChainTrust {
  readonly #modules: DaemonChainTrustModules;
  #lastDistrust: DaemonChainDistrust | null = null;

  constructor(modules: DaemonChainTrustModules) {
    this.#modules = modules;
  }

  /** Null when the chain may decide blocks now; else why not. A failed getinfo throws. */
  async distrust(): Promise<DaemonChainDistrust | null> {
    const info = await this.#modules.daemon.getInfo();
    const verdict = judgeDaemonChain(info);
    const reason = verdict.trusted ? null : verdict.reason;
    if (reason !== this.#lastDistrust) this.#logChange(verdict, info);
    this.#lastDistrust = reason;
    return reason;
  }

  #logChange(verdict: DaemonChainVerdict, info: DaemonChainFacts): void {
    const facts = {
      height: info.height,
      knownHeight: info.last_known_block_index + 1,
      peers: info.outgoing_connections_count + info.incoming_connections_count,
    };
    if (verdict.trusted) {
      this.#modules.logger.info(facts, "daemon's chain trusted again: pending blocks are decided");
    } else {
      this.#modules.logger.warn(
        { ...facts, reason: verdict.reason },
        `pending blocks not decided: ${verdict.detail}`,
      );
    }
  }
}
