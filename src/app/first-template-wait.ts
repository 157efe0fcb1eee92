import type { FirstTemplateWaitView } from '../servers/control/control-protocol.js';
import type { LeaderRole } from './leader-role.js';

export interface FirstTemplateWaitModules {
  /** The daemon the templates come from (its URL, for the operator). */
  readonly daemonUrl: string;
  /** Why there is no template yet, as far as this process knows; null: no answer yet. */
  readonly reason: () => string | null;
  readonly clock?: () => number;
}

/**
 * A starting pool process's wait for its first block template (fuegod down or still syncing), as
 * the control socket's `status` and the API's /health tell it: from which daemon, since when, and
 * why there is none yet. `end()` once the stratum ports are open.
 */
export class FirstTemplateWait {
  readonly #modules: FirstTemplateWaitModules;
  readonly #clock: () => number;
  readonly #sinceMs: number;
  #ended = false;

  constructor(modules: FirstTemplateWaitModules) {
    this.#modules = modules;
    this.#clock = modules.clock ?? Date.now;
    this.#sinceMs = this.#clock();
  }

  end(): void {
    this.#ended = true;
  }

  /** null once ended. */
  view(): FirstTemplateWaitView | null {
    if (this.#ended) return null;
    return {
      daemon: this.#modules.daemonUrl,
      waitedSeconds: Math.floor((this.#clock() - this.#sinceMs) / 1000),
      reason: this.#modules.reason(),
    };
  }

  /** The wait in one line (the /health template check's detail); null once ended. */
  detail(): string | null {
    const view = this.view();
    return view === null ? null : firstTemplateWaitText(view);
  }
}

/**
 * e.g. "waiting for the first template from the daemon at http://127.0.0.1:18180 for 42 s: connect
 * ECONNREFUSED 127.0.0.1:18180" (`status` and /health say it alike).
 */
export function firstTemplateWaitText(view: FirstTemplateWaitView): string {
  const reason = view.reason === null ? ' (no answer yet)' : `: ${view.reason}`;
  return `waiting for the first template from the daemon at ${view.daemon} for ${view.waitedSeconds} s${reason}`;
}

/** Why the stratum role has no template yet, as this process knows it (null: no answer yet). */
export function whyNoTemplate(leader: LeaderRole | null): string | null {
  if (leader === null) return 'none in Redis yet (the leading pool process polls the daemon)';
  const templates = leader.templates();
  if (templates === null) return 'standing by: another pool process leads and has published none yet';
  return templates.status().lastError ?? null;
}
