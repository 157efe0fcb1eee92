import { FuegoPoolError } from '../errors.js';

/**
 * - STORE_UNAVAILABLE: Redis could not be reached, timed out, or is loading/read-only/out of
 *   memory; nothing the caller sent was acknowledged (it may or may not have been applied).
 * - STORE_WRITE_FAILED: Redis answered a script with an error (corrupt key type, overflow): a bug
 *   or corrupt data, logged at error level.
 * - STORE_BACKLOG_FULL: too many shares wait for Redis; new ones are refused until it catches up.
 * - STORE_CLOSED: close() was called.
 * - STORE_CONNECT_FAILED / UNSUPPORTED_REDIS: at start, from createRedisClient.
 * - INVALID_RECORD: a share or candidate the ledger refuses to write (checked before batching,
 *   so one bad share never fails a batch); INVALID_KEY_PREFIX, INVALID_OPTION: configuration.
 * - CORRUPT_RECORD: a stored value that does not parse (never turned into a zero).
 * - SHARE_ENTRY_MISSING: a block's share entry is no longer in the stream (trimmed). The stream is
 *   not trimmed while a found block's window waits to be fixed, so only a block recorded before
 *   windows were fixed at find time (its window is read back at unlock), or a refused block
 *   promoted once found on the chain (the window fixer fixes it empty), can meet it.
 * - NOT_DURABLE: Redis cannot confirm that a write survives a crash or failover (payouts wait).
 */
export type StoreErrorCode =
  | 'STORE_UNAVAILABLE'
  | 'STORE_WRITE_FAILED'
  | 'STORE_BACKLOG_FULL'
  | 'STORE_CLOSED'
  | 'STORE_CONNECT_FAILED'
  | 'UNSUPPORTED_REDIS'
  | 'INVALID_RECORD'
  | 'INVALID_KEY_PREFIX'
  | 'INVALID_OPTION'
  | 'CORRUPT_RECORD'
  | 'SHARE_ENTRY_MISSING'
  | 'NOT_DURABLE';

export class StoreError extends FuegoPoolError<StoreErrorCode> {}

/** Reply errors that mean "Redis cannot take writes now", not "this write is wrong". */
const UNAVAILABLE_REPLY_PREFIXES = [
  'LOADING',
  'READONLY',
  'OOM',
  'BUSY',
  'MASTERDOWN',
  'TRYAGAIN',
  'CLUSTERDOWN',
  'NOREPLICAS',
] as const;

/** Maps whatever ioredis threw for a command to a StoreError (the original kept as `cause`). */
export function toStoreError(
  error: unknown,
  operation: string,
  data: Record<string, unknown> = {},
): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const isReplyError = error instanceof Error && error.name === 'ReplyError';
  const unavailable =
    !isReplyError || UNAVAILABLE_REPLY_PREFIXES.some((prefix) => message.startsWith(prefix));
  const code: StoreErrorCode = unavailable ? 'STORE_UNAVAILABLE' : 'STORE_WRITE_FAILED';
  return new StoreError(
    code,
    `${operation} failed: ${message}`,
    { ...data, operation, reason: message },
    { cause: error },
  );
}

/**
 * Runs Redis work with every failure a StoreError; errors of the `keep` class (a store's own
 * refusals, such as PaymentStoreError) pass through as they are.
 */
export async function runStoreCommand<T>(
  operation: string,
  command: () => Promise<T>,
  keep?: abstract new (...args: never[]) => Error,
): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (keep !== undefined && error instanceof keep) throw error;
    throw toStoreError(error, operation);
  }
}

/** Executes a pipeline: each command's reply, or the first failure (of the exec or a command) as a StoreError. */
export async function execStorePipeline(
  operation: string,
  pipeline: { exec(): Promise<Array<[Error | null, unknown]> | null> },
): Promise<unknown[]> {
  const replies = await runStoreCommand(operation, () => pipeline.exec());
  return (replies ?? []).map(([error, value]) => {
    if (error) throw toStoreError(error, operation);
    return value;
  });
}
