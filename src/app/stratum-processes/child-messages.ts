import type { PoolConfig } from '../../config/schema.js';
import type { BanChange, BanEntry } from '../../pool/ban-registry.js';
import type { PoolBackendMetrics } from '../../pool/pool-backend.js';
import type { ShareVerifierPoolMetrics } from '../../pow/verifier-pool.js';
import type { RpcCall, RpcService } from '../../rpc/rpc-call-observer.js';
import type { AdmissionVerdict } from '../../servers/stratum/connection-admission.js';
import type { StratumMetricsSnapshot } from '../../servers/stratum/stratum-metrics.js';
import type { ListeningPort } from '../../servers/stratum/stratum-server.js';
import type { ShareLedgerMetrics } from '../../store/shares/redis-share-ledger.js';

/**
 * The IPC between the pool process and its stratum child processes (Node cluster, `advanced`
 * serialization, so Infinity and nested objects arrive as sent). Both ends check `kind` before use;
 * the parent checks the fields of an `rpc-call` too, since they become metric values and labels,
 * and those of `refusals`, since they start kernel drops.
 */

/** The process-local numbers of one stratum child, sent every snapshot interval. */
export interface ChildStats {
  readonly stratum: StratumMetricsSnapshot;
  readonly backend: PoolBackendMetrics;
  readonly verifier: ShareVerifierPoolMetrics;
  readonly ledger: ShareLedgerMetrics;
}

export type ParentMessage =
  | {
      readonly kind: 'start';
      /** The parent's validated config, already cut down to this child (see childConfig). */
      readonly config: PoolConfig;
      readonly tls: { readonly cert: string; readonly key: string } | undefined;
      readonly index: number;
      readonly snapshotIntervalMs: number;
      /** The parent logger's level (callers may log quieter than config.log says). */
      readonly logLevel: string;
    }
  /** A ban in force at the parent (each one after `start`, then every new one). */
  | { readonly kind: 'adopt-ban'; readonly entry: BanEntry }
  /** A ban lifted at the parent. */
  | { readonly kind: 'unban'; readonly ip: string }
  /** The answer to the child's `admit` (the host-wide connection caps). */
  | {
      readonly kind: 'admission';
      readonly requestId: number;
      readonly ip: string;
      readonly verdict: AdmissionVerdict;
    }
  | { readonly kind: 'stop' };

export type ChildMessage =
  /** The child listens for messages now (anything sent before could be lost). */
  | { readonly kind: 'waiting' }
  /**
   * Booted (Redis connected, its role built): it waits for its first template now, as long as
   * that takes, and sends `ready` with it.
   */
  | { readonly kind: 'booted' }
  | { readonly kind: 'ready'; readonly listening: ListeningPort[]; readonly stats: ChildStats }
  | { readonly kind: 'stats'; readonly stats: ChildStats }
  /** A ban this child decided: the parent puts it in force everywhere. */
  | { readonly kind: 'banned'; readonly entry: BanEntry }
  /** An unban made in this child (its registry's; the operator's go to the parent). */
  | { readonly kind: 'unban'; readonly ip: string }
  | { readonly kind: 'start-failed'; readonly message: string }
  /** May a new connection from `ip` open? Answered by `admission` with the same requestId. */
  | { readonly kind: 'admit'; readonly requestId: number; readonly ip: string }
  /** A connection the parent admitted has closed. */
  | { readonly kind: 'release'; readonly ip: string }
  /**
   * One attempt of a call of this child's daemon or wallet client (submitblock, alias lookups),
   * sent as it ends: the parent's RPC metrics time it with the calls made there.
   */
  | { readonly kind: 'rpc-call'; readonly service: RpcService; readonly call: RpcCall }
  /**
   * The connections this child refused since its last report (banned at accept, closed for a
   * failed login or a protocol violation), counted per peer key: the pool process holds the
   * listening sockets, so it keeps the refusal budgets and drops a flooding peer's connections
   * (child-refusal-reports.ts, primary-flood-drops.ts).
   */
  | { readonly kind: 'refusals'; readonly peers: ReadonlyArray<readonly [peer: string, count: number]> };

const PARENT_KINDS: ReadonlySet<string> = new Set(['start', 'adopt-ban', 'unban', 'admission', 'stop']);
const CHILD_KINDS: ReadonlySet<string> = new Set([
  'waiting',
  'booted',
  'ready',
  'stats',
  'banned',
  'unban',
  'start-failed',
  'admit',
  'release',
  'rpc-call',
  'refusals',
]);

/** Far above the longest method or error code the clients have: a longer one is not a real call. */
const MAX_RPC_NAME_LENGTH = 64;
/** Peers in one `refusals` report: a child with more in one interval sends them in several. */
export const MAX_REFUSAL_PEERS = 1_024;
/** Far above the longest peer key ("ffff:…:ffff/128" is 43 characters). */
const MAX_PEER_KEY_LENGTH = 64;

function hasKind(value: unknown, kinds: ReadonlySet<string>): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  return typeof kind === 'string' && kinds.has(kind);
}

export function isParentMessage(value: unknown): value is ParentMessage {
  return hasKind(value, PARENT_KINDS);
}

export function isChildMessage(value: unknown): value is ChildMessage {
  if (!hasKind(value, CHILD_KINDS)) return false;
  const kind = (value as { kind: string }).kind;
  if (kind === 'rpc-call') return isRpcCallMessage(value as object);
  if (kind === 'refusals') return isRefusalsMessage(value as object);
  return true;
}

/** At most MAX_REFUSAL_PEERS [peer key, count] pairs, each key a sane string, each count 1 or more. */
function isRefusalsMessage(message: object): boolean {
  const { peers } = message as { peers?: unknown };
  return (
    Array.isArray(peers) &&
    peers.length <= MAX_REFUSAL_PEERS &&
    peers.every(
      (entry: unknown) =>
        Array.isArray(entry) &&
        entry.length === 2 &&
        typeof entry[0] === 'string' &&
        entry[0].length > 0 &&
        entry[0].length <= MAX_PEER_KEY_LENGTH &&
        Number.isSafeInteger(entry[1]) &&
        entry[1] > 0,
    )
  );
}

/** A known service, a method and error code of sane length, a finite duration of 0 or more. */
function isRpcCallMessage(message: object): boolean {
  const { service, call } = message as { service?: unknown; call?: unknown };
  if ((service !== 'daemon' && service !== 'wallet') || typeof call !== 'object' || call === null)
    return false;
  const { method, durationMs, errorCode } = call as { [K in keyof RpcCall]?: unknown };
  return (
    isRpcName(method) &&
    typeof durationMs === 'number' &&
    Number.isFinite(durationMs) &&
    durationMs >= 0 &&
    (errorCode === undefined || isRpcName(errorCode))
  );
}

function isRpcName(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_RPC_NAME_LENGTH;
}

/** A change of the pool's bans as the children hear it. */
export function banMessageOf(change: BanChange): ParentMessage {
  return change.kind === 'banned'
    ? { kind: 'adopt-ban', entry: change.entry }
    : { kind: 'unban', ip: change.ip };
}
