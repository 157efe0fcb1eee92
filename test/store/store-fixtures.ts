import { createLogger, type Logger } from '../../src/log/logger.js';
import type { AcceptedShare, BlockCandidate } from '../../src/model/share-ledger.js';

export const silentLogger: Logger = createLogger({ level: 'silent' });

/** Address-like strings (never ':'), distinct enough to read in a failure. */
export const ADDRESSES = [
  'fireAlpha1111111111111111111111111111111111111111111111111111111111111111111111111111111111111',
  'fireBravo2222222222222222222222222222222222222222222222222222222222222222222222222222222222222',
  'fireCharlie33333333333333333333333333333333333333333333333333333333333333333333333333333333333',
] as const;

let prefixCounter = 0;
/** A fresh key prefix per ledger: tests share one Redis without FLUSHALL. */
export function uniquePrefix(label: string): string {
  prefixCounter += 1;
  return `t${prefixCounter}-${label}`.toLowerCase().slice(0, 32);
}

export function makeShare(overrides: Partial<AcceptedShare> = {}): AcceptedShare {
  return {
    address: ADDRESSES[0],
    worker: 'rig1',
    difficulty: 5000,
    height: 100,
    timestampMs: 1_700_000_000_000,
    solo: false,
    stale: false,
    ...overrides,
  };
}

export function blockHash(n: number): string {
  return n.toString(16).padStart(64, '0');
}

export function makeCandidate(overrides: Partial<BlockCandidate> = {}): BlockCandidate {
  return {
    height: 100,
    hash: blockHash(0xb10c),
    prevHash: blockHash(0xb10b),
    networkDifficulty: 123_456_789_012_345_678_901n,
    share: makeShare({ difficulty: 7000 }),
    submitResult: 'accepted',
    // Not a whole block: the ledger stores the hex as it is.
    blobHex: '0900b10c',
    timestampMs: 1_700_000_100_000,
    ...overrides,
  };
}

/** Resolves with whether `promise` settled within `ms`, without consuming its outcome. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
}
