import type { AcceptedShare } from '../../model/share-ledger.js';
import { StoreError } from '../store-error.js';

/**
 * One share as a `<p>:shares` stream entry. Field order (the Lua scripts write them in this
 * order): a address, w worker, d difficulty, h height, t timestamp ms, s solo "1"/"0",
 * x stale-in-grace "1"/"0". Every entry carries all seven so the stream stores the names once per
 * node.
 */
export const SHARE_ENTRY_FIELDS = ['a', 'w', 'd', 'h', 't', 's', 'x'] as const;

/** A share read back from the stream, with its entry id ("<ms>-<seq>"). */
export interface StoredShare extends AcceptedShare {
  readonly entryId: string;
}

/** Generous bounds: the stratum layer enforces the real ones; these only keep keys sane. */
const MAX_ADDRESS_LENGTH = 256;
const MAX_WORKER_LENGTH = 128;

/**
 * Refuses a share that Redis would choke on (HINCRBY of "1.5") or that would build a wrong key,
 * so a bad share is rejected alone instead of failing the batch it would have joined.
 */
export function validateShare(share: AcceptedShare): void {
  const bad = (field: string): never => {
    throw new StoreError('INVALID_RECORD', `share has an invalid ${field}`, { field });
  };
  if (typeof share.address !== 'string' || share.address.length === 0) bad('address');
  if (share.address.length > MAX_ADDRESS_LENGTH || share.address.includes(':')) bad('address');
  if (typeof share.worker !== 'string' || share.worker.length > MAX_WORKER_LENGTH) bad('worker');
  if (!Number.isSafeInteger(share.difficulty) || share.difficulty < 1) bad('difficulty');
  if (!Number.isSafeInteger(share.height) || share.height < 0) bad('height');
  if (!Number.isSafeInteger(share.timestampMs) || share.timestampMs < 0) bad('timestampMs');
  if (typeof share.solo !== 'boolean') bad('solo');
  if (typeof share.stale !== 'boolean') bad('stale');
}

/** The seven values in SHARE_ENTRY_FIELDS order, as the scripts take them in ARGV. */
function shareEntryValues(share: AcceptedShare): string[] {
  const values: string[] = [];
  pushShareEntryValues(values, share);
  return values;
}

/** The seven values by name, for a script layout (SHARE_ENTRY_ARGS, in SHARE_ENTRY_FIELDS order). */
export const SHARE_ENTRY_ARGS = [
  'shareAddress',
  'shareWorker',
  'shareDifficulty',
  'shareHeight',
  'shareTimestampMs',
  'shareSolo',
  'shareStale',
] as const;

export function shareEntryArgs(share: AcceptedShare): { [N in (typeof SHARE_ENTRY_ARGS)[number]]: string } {
  const [shareAddress, shareWorker, shareDifficulty, shareHeight, shareTimestampMs, shareSolo, shareStale] =
    shareEntryValues(share) as [string, string, string, string, string, string, string];
  return { shareAddress, shareWorker, shareDifficulty, shareHeight, shareTimestampMs, shareSolo, shareStale };
}

/** shareEntryValues appended to `target` (a batch's ARGV), without a temporary array per share. */
export function pushShareEntryValues(target: string[], share: AcceptedShare): void {
  target.push(
    share.address,
    share.worker,
    String(share.difficulty),
    String(share.height),
    String(share.timestampMs),
    share.solo ? '1' : '0',
    share.stale ? '1' : '0',
  );
}

function parseSafeInteger(value: string | undefined, field: string, entryId: string): number {
  if (value === undefined || !/^\d{1,16}$/.test(value)) {
    throw new StoreError('CORRUPT_RECORD', `share entry has a corrupt ${field}`, { entryId, field, value });
  }
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) {
    throw new StoreError('CORRUPT_RECORD', `share entry has a corrupt ${field}`, { entryId, field, value });
  }
  return parsed;
}

function parseFlag(value: string | undefined, field: string, entryId: string): boolean {
  if (value === '1') return true;
  if (value === '0') return false;
  throw new StoreError('CORRUPT_RECORD', `share entry has a corrupt ${field}`, { entryId, field, value });
}

/** Parses XRANGE/XREVRANGE's `[field, value, field, value, ...]` of one entry. */
export function parseShareEntry(entryId: string, flat: readonly string[]): StoredShare {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  const address = fields.get('a');
  const worker = fields.get('w');
  if (address === undefined || address.length === 0 || worker === undefined) {
    throw new StoreError('CORRUPT_RECORD', 'share entry lacks address or worker', { entryId });
  }
  return {
    entryId,
    address,
    worker,
    difficulty: parseSafeInteger(fields.get('d'), 'd', entryId),
    height: parseSafeInteger(fields.get('h'), 'h', entryId),
    timestampMs: parseSafeInteger(fields.get('t'), 't', entryId),
    solo: parseFlag(fields.get('s'), 's', entryId),
    stale: parseFlag(fields.get('x'), 'x', entryId),
  };
}
