/** IPC between the abuse benchmark (run.ts) and its two load processes. */

/** Where the pool under test listens, and a valid payout address for its miners. */
export interface Target {
  readonly stratumPort: number;
  readonly apiPort: number;
  readonly address: string;
}

export type HonestCommand =
  | { readonly type: 'start'; readonly target: Target; readonly miners: number }
  | { readonly type: 'phase'; readonly name: string }
  | { readonly type: 'report' }
  | { readonly type: 'stop' };

export interface HonestPhaseStats {
  readonly phase: string;
  readonly keepalives: number;
  readonly keepaliveP50Ms: number;
  readonly keepaliveP99Ms: number;
  readonly shares: number;
  readonly shareP50Ms: number;
  readonly shareP99Ms: number;
  /** Replies other than OK (or a closed connection) to honest requests. */
  readonly failures: number;
}

export type HonestEvent =
  | { readonly type: 'ready'; readonly miners: number }
  | { readonly type: 'report'; readonly phases: readonly HonestPhaseStats[] };

export const ATTACKS = [
  'connection-flood',
  'api-connection-hold',
  'login-flood',
  'feed-flood',
  'expensive-reads',
  'submit-storm',
] as const;
export type AttackName = (typeof ATTACKS)[number];

export type AttackerCommand =
  | {
      readonly type: 'attack';
      readonly name: AttackName;
      readonly target: Target;
      readonly durationMs: number;
      /** The loopback source address to attack from (a fresh one per attack: bans last). */
      readonly source: string;
    }
  | { readonly type: 'stop' };

export interface AttackResult {
  readonly name: AttackName;
  /** Requests (connections, logins, subscriptions, reads, submits) the attacker sent. */
  readonly sent: number;
  /** Requests the pool did the work for (a key check, a hash, a read, an accepted connection). */
  readonly served: number;
  /** Requests served before the first limit (refusal, rate limit, close or ban). */
  readonly servedBeforeLimit: number;
  /** What stopped it first, e.g. "LOGIN_RATE_LIMITED", "closed", "banned"; "none" if nothing did. */
  readonly firstLimit: string;
  /** The attacker process's CPU time during the attack (user + system). */
  readonly attackerCpuMs: number;
}

export type AttackerEvent = { readonly type: 'result'; readonly result: AttackResult };
