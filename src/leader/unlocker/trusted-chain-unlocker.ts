import type { BlockUnlocker } from './block-unlocker.js';
import type { DaemonChainDistrust, DaemonChainTrust } from './daemon-chain-trust.js';
import type { UnlockerRunSummary } from './unlock-decision.js';
import type { UnlockRunListener } from './unlock-run-listener.js';

/** A run's summary; 'daemon-isolated' / 'daemon-syncing': nothing decided on a chain that may be undone. */
export interface UnlockRunSummary extends Omit<UnlockerRunSummary, 'skipped'> {
  readonly skipped: UnlockerRunSummary['skipped'] | DaemonChainDistrust;
}

/** The unlocker as the leader loop runs it: a run, and the window fixer it runs on `block-found`. */
export interface Unlocker {
  readonly windows: BlockUnlocker['windows'];
  runOnce(listener?: UnlockRunListener): Promise<UnlockRunSummary>;
}

export interface TrustedChainUnlockerModules {
  readonly unlocker: Unlocker;
  readonly chainTrust: Pick<DaemonChainTrust, 'distrust'>;
}

/**
 * The block unlocker run only on a daemon chain the trust check accepts (daemon-chain-trust.ts):
 * on an isolated or syncing daemon a run decides nothing (no credit, no orphan, no refused block
 * promoted or written off) and says why in `skipped`. Found blocks' PPLNS windows are fixed all
 * the same: they are read from the share stream, not the chain, and the stream is not trimmed
 * while one waits. A getinfo that fails fails the run, as any daemon error does.
 */
export class TrustedChainUnlocker implements Unlocker {
  readonly #modules: TrustedChainUnlockerModules;
  readonly windows: Unlocker['windows'];

  constructor(modules: TrustedChainUnlockerModules) {
    this.#modules = modules;
    this.windows = modules.unlocker.windows;
  }

  async runOnce(listener: UnlockRunListener = {}): Promise<UnlockRunSummary> {
    const distrust = await this.#modules.chainTrust.distrust();
    if (distrust === null) return this.#modules.unlocker.runOnce(listener);
    await this.windows.fixPending();
    return { skipped: distrust, decisions: [] };
  }
}
