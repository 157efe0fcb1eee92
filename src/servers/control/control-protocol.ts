import { z } from 'zod';
import type { PayoutSkipReason, UpkeepReport } from '../../pool/payouts/payout-reports.js';
import type { ControlWireCode } from './control-errors.js';

/**
 * The control socket protocol, carried by net-ipc frames (length-prefixed JSON):
 *
 * - client -> server, net-ipc request: ControlRequest `{ v: 1, id, type, ...arguments }`;
 * - server -> client, the request's response: ControlReply `{ v: 1, id, ok: true, result }` or
 *   `{ v: 1, id, ok: false, error: { code, message, data } }`;
 * - server -> client, net-ipc message, only while a long request runs (payout-now, wallet-optimize):
 *   ControlProgressMessage `{ v: 1, kind: 'progress', id, progress }`, in order, all before the
 *   response. `id` is the client's request id, so progress finds its request.
 *
 * Amounts are decimal strings of atomic units (JSON has no bigint). No field carries a secret.
 */
export const CONTROL_PROTOCOL_VERSION = 1;

/** Frames larger than this are not requests this protocol sends: the connection is dropped. */
export const MAX_FRAME_BYTES = 64 * 1024;
export const MAX_BAN_SECONDS = 365 * 86_400;
export const MAX_BAN_REASON_LENGTH = 200;
export const MAX_MINERS_LIMIT = 100;

const requestId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, '1 to 64 letters, digits, "-" or "_"');
const ipText = z.string().min(1).max(64);
const header = { v: z.literal(CONTROL_PROTOCOL_VERSION), id: requestId };

export const controlRequestSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...header, type: z.literal('status') }),
  z.strictObject({ ...header, type: z.literal('bans') }),
  z.strictObject({
    ...header,
    type: z.literal('ban'),
    ip: ipText,
    seconds: z.number().int().min(1).max(MAX_BAN_SECONDS),
    // Printable text only: it ends up in logs and in a terminal.
    reason: z
      .string()
      .min(1)
      .max(MAX_BAN_REASON_LENGTH)
      .regex(/^[^\p{Cc}]*$/u, 'no control characters')
      .optional(),
  }),
  z.strictObject({ ...header, type: z.literal('unban'), ip: ipText }),
  z.strictObject({
    ...header,
    type: z.literal('miners'),
    limit: z.number().int().min(1).max(MAX_MINERS_LIMIT),
  }),
  z.strictObject({ ...header, type: z.literal('payout-now') }),
  z.strictObject({ ...header, type: z.literal('wallet-optimize') }),
]);

export type ControlRequest = z.infer<typeof controlRequestSchema>;
export type ControlRequestType = ControlRequest['type'];
/** A request as the client builds it (the client adds `v` and `id`). */
export type ControlRequestBody<T extends ControlRequestType = ControlRequestType> = Omit<
  Extract<ControlRequest, { type: T }>,
  'v' | 'id'
>;

export interface BanView {
  readonly ip: string;
  readonly bannedAtMs: number;
  readonly untilMs: number;
  readonly remainingSeconds: number;
  readonly offences: number;
  readonly manual: boolean;
  readonly reason: string;
}

/** One stratum child process of this pool process (`stratum.processes` > 1). */
export interface StratumProcessView {
  readonly index: number;
  readonly nodeId: number;
  /** null while it is being restarted. */
  readonly pid: number | null;
  /** starting: booting (the start timeout runs); waiting-for-template: booted, ports still closed. */
  readonly state: 'starting' | 'waiting-for-template' | 'serving' | 'waiting-to-restart' | 'stopped';
  readonly restarts: number;
  readonly sessions: number;
}

/** The stratum role waiting for its first block template: its ports stay closed until one comes. */
export interface FirstTemplateWaitView {
  /** The daemon the templates come from (its URL). */
  readonly daemon: string;
  readonly waitedSeconds: number;
  /** Why there is none yet (the leader's last daemon error, or that another process leads); null: no answer yet. */
  readonly reason: string | null;
}

export interface StatusView {
  readonly version: string;
  readonly uptimeSeconds: number;
  /** Set while the process waits for its first template (it takes no miner yet); null otherwise. */
  readonly waiting: FirstTemplateWaitView | null;
  /** The templates this process serves or polls; null on a process with neither. */
  readonly templates: {
    readonly healthy: boolean;
    readonly height: number | null;
    readonly templateAgeMs: number | null;
    /** Daemon poller only (leader term); null for templates taken from Redis. */
    readonly consecutiveFailures: number | null;
    readonly lastError: string | null;
  } | null;
  /** This process's stratum role; null without it. */
  readonly stratum: {
    readonly connections: number;
    readonly sessions: number;
    /** Current connections per bound port. */
    readonly ports: Readonly<Record<string, number>>;
    readonly shares: { readonly accepted: number; readonly stale: number; readonly rejected: number };
    readonly blocks: {
      readonly found: number;
      readonly accepted: number;
      readonly rejected: number;
      readonly submitErrors: number;
    };
    /** `active`: this process's list, which every stratum host shares; `issued`: decided here since start. */
    readonly bans: { readonly active: number; readonly issued: number };
    /** With `stratum.processes` > 1: each stratum child process; null when the role runs in this process. */
    readonly processes: readonly StratumProcessView[] | null;
  } | null;
  /** Pool-wide (from Redis); null when the statistics store could not be read. */
  readonly pool: {
    readonly hashrate: number;
    readonly windowSeconds: number;
    readonly miners: number;
    readonly workers: number;
  } | null;
  readonly payouts: {
    /** none: no leader role here; standby: another process holds the lease; leading: payout --now runs here. */
    readonly role: 'none' | 'standby' | 'leading';
    readonly running: boolean;
  };
  /** The leading process's unlock runs; null elsewhere (absent from a pool older than this field). */
  readonly unlocker?: UnlockerView | null;
}

/** The last unlock run of the leader's term (leader/unlock-status.ts). */
export interface UnlockerView {
  /** Wall clock (ms) at the end of the last run; null before the first. */
  readonly lastRunMs: number | null;
  /** Why runs decide nothing (daemon-isolated, witness-disagrees, ...), or null. */
  readonly held: string | null;
  readonly heldSinceMs: number | null;
  /** Blocks the last run credited, orphaned or flagged. */
  readonly decided: number;
  readonly lastError: string | null;
}

export interface TopMinerView {
  readonly address: string;
  /** H/s over the window. */
  readonly hashrate: number;
  readonly activeWorkers: number;
  readonly lastShareMs: number;
}

export interface MinersView {
  readonly windowSeconds: number;
  readonly miners: readonly TopMinerView[];
}

export interface PayoutBatchView {
  readonly batchId: string;
  readonly state: 'prepared' | 'sending' | 'sent' | 'failed' | 'planned';
  readonly recipients: number;
  readonly amountAtomic: string;
  readonly txHash: string | null;
  readonly networkFeeAtomic: string;
  readonly note: string;
}

export interface PayoutSummaryView {
  readonly skipped: PayoutSkipReason | null;
  readonly detail: string;
  readonly recovered: readonly PayoutBatchView[];
  readonly batches: readonly PayoutBatchView[];
  readonly stillOpen: readonly PayoutBatchView[];
  readonly skippedMiners: ReadonlyArray<{ readonly address: string; readonly reason: string }>;
  /** Tagged wallet transactions Redis had no batch for, first seen in this pass. */
  readonly unknownPayments: ReadonlyArray<{
    readonly txHash: string;
    readonly batchId: string;
    readonly recipients: number;
    readonly amountAtomic: string;
  }>;
}

export interface PayoutNowView {
  readonly elapsedMs: number;
  /** payment-sent events seen while the pass ran. */
  readonly batchesSent: number;
  /** The runner's summary when the leader returns it, else null. */
  readonly summary: PayoutSummaryView | null;
}

/**
 * The leader's wallet upkeep run on demand (`fuego-pool wallet optimize`): what it sent, what is
 * still pending, or why it did nothing (UpkeepReport; only numbers and strings).
 */
export type WalletOptimizeView = UpkeepReport & { readonly elapsedMs: number };

export interface ControlResultMap {
  readonly status: StatusView;
  readonly bans: { readonly bans: readonly BanView[] };
  readonly ban: { readonly ban: BanView };
  readonly unban: { readonly ip: string; readonly wasBanned: boolean };
  readonly miners: MinersView;
  readonly 'payout-now': PayoutNowView;
  readonly 'wallet-optimize': WalletOptimizeView;
}

export interface ControlProgress {
  /** started -> (running | batch-sent)* -> the response. */
  readonly stage: 'started' | 'running' | 'batch-sent';
  readonly elapsedMs: number;
  /** Units done so far (batches sent) and the total when known. */
  readonly done: number;
  readonly total: number | null;
  readonly detail: string;
}

export interface ControlProgressMessage {
  readonly v: typeof CONTROL_PROTOCOL_VERSION;
  readonly kind: 'progress';
  readonly id: string;
  readonly progress: ControlProgress;
}

export interface ControlErrorBody {
  readonly code: ControlWireCode;
  readonly message: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export type ControlReply<T extends ControlRequestType = ControlRequestType> =
  | {
      readonly v: typeof CONTROL_PROTOCOL_VERSION;
      readonly id: string;
      readonly ok: true;
      readonly result: ControlResultMap[T];
    }
  | {
      readonly v: typeof CONTROL_PROTOCOL_VERSION;
      readonly id: string;
      readonly ok: false;
      readonly error: ControlErrorBody;
    };

/** What the client checks of every reply before trusting `result` (the server is trusted; a version skew is not). */
export const controlReplyEnvelopeSchema = z.union([
  z.object({
    v: z.literal(CONTROL_PROTOCOL_VERSION),
    id: z.string(),
    ok: z.literal(true),
    result: z.record(z.string(), z.unknown()),
  }),
  z.object({
    v: z.literal(CONTROL_PROTOCOL_VERSION),
    id: z.string(),
    ok: z.literal(false),
    error: z.object({
      code: z.string(),
      message: z.string(),
      data: z.record(z.string(), z.unknown()).default({}),
    }),
  }),
]);

export const controlProgressMessageSchema = z.object({
  v: z.literal(CONTROL_PROTOCOL_VERSION),
  kind: z.literal('progress'),
  id: z.string(),
  progress: z.object({
    stage: z.enum(['started', 'running', 'batch-sent']),
    elapsedMs: z.number(),
    done: z.number(),
    total: z.number().nullable(),
    detail: z.string(),
  }),
});
