import type { Logger } from '../../log/logger.js';
import type { DaemonClient } from '../../rpc/daemon-client.js';
import { DaemonRpcCode } from '../../rpc/daemon-client.js';
import { RpcError } from '../../rpc/rpc-error.js';

/**
 * Why a witness kept the unlocker from deciding: 'witness-disagrees' (a witness holds another
 * block at the checked height: the pool's daemon or the witness is on a fork), 'witness-unreachable'
 * (a witness did not answer), 'witness-behind' (a witness's chain is shorter than the checked height).
 */
export type WitnessDistrust = 'witness-disagrees' | 'witness-unreachable' | 'witness-behind';

/** Worst first: the reason a run reports when witnesses differ in what they say. */
const SEVERITY: readonly WitnessDistrust[] = ['witness-disagrees', 'witness-unreachable', 'witness-behind'];

/**
 * Blocks below the pool daemon's tip at which the witnesses are asked: a witness a block or two
 * behind, or on the other side of a race for the newest block, still agrees there.
 */
export const WITNESS_TIP_SLACK_BLOCKS = 2;

/** A witness's client: asked for block hashes, closed when the leader stops (if it holds connections). */
export type WitnessChain = Pick<DaemonClient, 'getBlockHash'> & Partial<Pick<DaemonClient, 'close'>>;

/** A second fuegod, with its own peers, that vouches for the pool daemon's chain. */
export interface Witness {
  /** `host:port`, for logs. */
  readonly name: string;
  readonly chain: WitnessChain;
}

export interface WitnessChainCheckOptions {
  /** The unlocker's confirmDepth: the checked height is never shallower than what a run decides. */
  readonly confirmDepth: number;
}

export interface WitnessChainCheckModules {
  readonly daemon: Pick<DaemonClient, 'getBlockCount' | 'getBlockHash'>;
  readonly witnesses: readonly Witness[];
  readonly logger: Logger;
}

type WitnessAnswer =
  | { readonly witness: string; readonly verdict: 'agrees' }
  | { readonly witness: string; readonly verdict: WitnessDistrust; readonly detail: string };

/**
 * The check against an eclipse: a fuegod whose peers are all on one fork has peers and is synced,
 * so DaemonChainTrust accepts it, and the blocks the pool finds on that fork would be credited and
 * paid. Before each run every witness is asked for its block at the pool daemon's height - 1 -
 * slack; the same hash there means the same chain below it (each block names its parent), so
 * every block a run decides (confirmDepth deep, confirmDepth > slack) is on the witnesses' chain
 * too. Any witness that disagrees, does not answer or is not that high holds the run: money waits
 * rather than follow a chain nobody else vouches for. Logs each change of verdict once: an error
 * for a disagreement, a warning otherwise, an info line when all agree again.
 */
export class WitnessChainCheck {
  readonly #slack: number;
  readonly #modules: WitnessChainCheckModules;
  #last: WitnessDistrust | null = null;

  constructor(options: WitnessChainCheckOptions, modules: WitnessChainCheckModules) {
    // With confirmDepth 1 the tip itself is decided, so it is the height asked.
    this.#slack = Math.min(WITNESS_TIP_SLACK_BLOCKS, Math.max(0, options.confirmDepth - 1));
    this.#modules = modules;
  }

  /** Null when every witness holds the pool daemon's block at the checked height; else why not. */
  async distrust(): Promise<WitnessDistrust | null> {
    const { daemon, witnesses } = this.#modules;
    const height = (await daemon.getBlockCount()) - 1 - this.#slack;
    if (height < 1 || witnesses.length === 0) return this.#settle(null, height, '', []);
    const ours = await daemon.getBlockHash(height);
    const answers = await Promise.all(witnesses.map((witness) => askWitness(witness, height, ours)));
    const worst = SEVERITY.find((reason) => answers.some((answer) => answer.verdict === reason)) ?? null;
    return this.#settle(worst, height, ours, answers);
  }

  /** Closes the witnesses' kept-alive connections (the leader stops, or loses its lease). */
  close(): void {
    for (const witness of this.#modules.witnesses) witness.chain.close?.();
  }

  #settle(
    reason: WitnessDistrust | null,
    height: number,
    ours: string,
    answers: readonly WitnessAnswer[],
  ): WitnessDistrust | null {
    if (reason !== this.#last) {
      const { logger } = this.#modules;
      const facts = { height, hash: ours, witnesses: answers };
      if (reason === null)
        logger.info(facts, 'witness daemons agree with the daemon: pending blocks are decided');
      else if (reason === 'witness-disagrees') {
        logger.error(
          { ...facts, reason },
          'pending blocks not decided: a witness daemon holds another block at this height (the daemon or the witness is on a fork)',
        );
      } else logger.warn({ ...facts, reason }, `pending blocks not decided: ${reason}`);
    }
    this.#last = reason;
    return reason;
  }
}

async function askWitness(witness: Witness, height: number, ours: string): Promise<WitnessAnswer> {
  try {
    const theirs = await witness.chain.getBlockHash(height);
    if (theirs === ours) return { witness: witness.name, verdict: 'agrees' };
    return { witness: witness.name, verdict: 'witness-disagrees', detail: `holds ${theirs}` };
  } catch (error) {
    if (error instanceof RpcError && error.rpcCode === DaemonRpcCode.TOO_BIG_HEIGHT) {
      return {
        witness: witness.name,
        verdict: 'witness-behind',
        detail: `its chain is not ${height + 1} high`,
      };
    }
    const detail = error instanceof Error ? error.message : String(error);
    return { witness: witness.name, verdict: 'witness-unreachable', detail };
  }
}
