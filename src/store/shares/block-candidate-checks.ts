import { type BlockRefusalReason, isBlockRefusalReason } from '../../model/block-refusal-reason.js';
import type { BlockCandidate } from '../../model/share-ledger.js';
import { StoreError } from '../store-error.js';
import { validateShare } from './share-entry.js';

const MAX_SUBMIT_ERROR_LENGTH = 1_024;
const BLOCK_HASH_PATTERN = /^[0-9a-f]{64}$/;
const BLOB_HEX_PATTERN = /^(?:[0-9a-f]{2})+$/;

/** Throws INVALID_RECORD unless every field of the candidate can be written as its block record. */
export function validateCandidate(candidate: BlockCandidate): void {
  const bad = (field: string): never => {
    throw new StoreError('INVALID_RECORD', `block candidate has an invalid ${field}`, { field });
  };
  validateShare(candidate.share);
  if (!Number.isSafeInteger(candidate.height) || candidate.height < 0) bad('height');
  if (!BLOCK_HASH_PATTERN.test(candidate.hash)) bad('hash');
  if (!BLOCK_HASH_PATTERN.test(candidate.prevHash)) bad('prevHash');
  if (typeof candidate.networkDifficulty !== 'bigint' || candidate.networkDifficulty < 1n)
    bad('networkDifficulty');
  if (!['accepted', 'rejected', 'error'].includes(candidate.submitResult)) bad('submitResult');
  if (typeof candidate.blobHex !== 'string' || !BLOB_HEX_PATTERN.test(candidate.blobHex)) bad('blobHex');
  if (!Number.isSafeInteger(candidate.timestampMs) || candidate.timestampMs < 0) bad('timestampMs');
}

/** The candidate with its daemon error cut to what the block record keeps. */
export function boundedCandidate(candidate: BlockCandidate): BlockCandidate {
  return candidate.submitError !== undefined && candidate.submitError.length > MAX_SUBMIT_ERROR_LENGTH
    ? { ...candidate, submitError: candidate.submitError.slice(0, MAX_SUBMIT_ERROR_LENGTH) }
    : candidate;
}

/** Throws INVALID_RECORD unless the refusal names a block record and a known reason. */
export function validateRefusal(candidate: BlockCandidate, reason: BlockRefusalReason): void {
  const bad = (field: string): never => {
    throw new StoreError('INVALID_RECORD', `block refusal has an invalid ${field}`, { field });
  };
  if (!BLOCK_HASH_PATTERN.test(candidate.hash)) bad('hash');
  if (!Number.isSafeInteger(candidate.height) || candidate.height < 0) bad('height');
  if (!isBlockRefusalReason(reason)) bad('reason');
}
