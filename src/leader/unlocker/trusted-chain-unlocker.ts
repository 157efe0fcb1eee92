import type { BlockUnlocker } from './block-unlocker.js';
import type { DaemonChainDistrust } from './daemon-chain-trust.js';
import type { UnlockerRunSummary } from './unlock-decision.js';
import type { UnlockRunListener } from './unlock-run-listener.js';
import type { WitnessDistrust } from './witness-chain-check.js';

/** Why a run decided nothing on a chain that may be undone. */
export type ChainDistrust = DaemonChainDistrust | WitnessDistrust;

/** A run's summary; `skipped` also says why the chain was not trusted. */
export interface UnlockRunSummary extends Omit<UnlockerRunSummary, 'skipped'> {
  readonly skipped: UnlockerRunSummary['skipped'] | ChainDistrust;
}

/** The unlocker as the leader loop runs it: a run, and the window fixer it runs on `block-found`. */
export interface Unlocker {
  readonly windows: BlockUnlocker['windows'];
  runOnce(listener?: UnlockRunListener): Promise<UnlockRunSummary>;
  /** Releases what the unlocker holds open (the witness daemons' connections); no run after it. */
  close?(): void;
}

/** One check of the daemon's chain: null when it may decide blocks now, else why not. */
export interface ChainCheck {
  distrust(): Promise<ChainDistrust | null>;
  close?(): void;
}

export interface TrustedChainUnlockerModules {
  readonly unlocker: Unlocker;
  /** Asked in order; the first that distrusts the chain holds the run (the later ones are not asked). */
  readonly checks: readonly ChainCheck[];
}

/**
 * The block unlocker run only on a daemon chain every check accepts (daemon-chain-trust.ts: peers,
 * not syncing; witness-chain-check.ts: the witness daemons hold the same chain): otherwise a run
 * decides nothing (no credit, no orphan, no refused block promoted or written off) and says why
 * in `skipped`. Found blocks' PPLNS windows are fixed all the same: they are read from the share
 * stream, not the chain, and the stream is not trimmed while one waits. A failed call to the
 * pool's daemon fails the run, as any daemon error does.
 */
export class TrustedChainUnlocker implements Unlocker {
  readonly #modules: TrustedChainUnlockerModules;
  readonly windows: Unlocker['windows'];

  constructor(modules: TrustedChainUnlockerModules) {
    this.#modules = modules;
    this.windows = modules.unlocker.windows;
  }

  async runOnce(listener: UnlockRunListener = {}): Promise<UnlockRunSummary> {
    for (const check of this.#modules.checks) {
      const distrust = await check.distrust();
      if (distrust === null) continue;
      await this.windows.fixPending();
      return { skipped: distrust, decisions: [] };
    }
    return this.#modules.unlocker.runOnce(listener);
  }

  close(): void {
    for (const check of this.#modules.checks) check.close?.();
  }
}
