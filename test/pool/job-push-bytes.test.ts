import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BlockTemplate, parseBlockTemplate } from '../../src/fuego/block-template.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import type { ParentStyle } from '../../src/fuego/job-work.js';
import { nativeFastHash } from '../../src/pow/native-fast-hash.js';
import { type LoadedTemplate, loadCapturedTemplates } from '../helpers/captured-templates.js';

/*
 * The job push builds every miner's blob the fast way (the native addon runs all of a job's hashes
 * in one call over a reused work buffer). Whatever it does, each miner must get exactly the bytes
 * of the straightforward build: the pure keccak, a fresh copy of the coinbase, the merkle root
 * from the branch, the aux hash, the parent coinbase and the PoW input (BlockTemplate.buildJob).
 */

const fastHash = nativeFastHash();
const captured = loadCapturedTemplates();
const STYLES: readonly ParentStyle[] = ['pool', 'daemon-miner'];

function parse(t: LoadedTemplate, parentStyle: ParentStyle, fast: boolean): BlockTemplate {
  return parseBlockTemplate({
    blob: hexToBytes(t.result.blocktemplate_blob),
    parentStyle,
    reservedOffset: t.result.reserved_offset,
    reserveSize: t.reserveSize,
    height: t.result.height,
    ...(fast ? { fastHash: fastHash! } : {}),
  });
}

/** Extra nonces as the pool hands them out (node id, counter) and odd ones: short, full, all 0xff. */
function extraNonces(capacity: number, count: number): Uint8Array[] {
  const out: Uint8Array[] = [new Uint8Array(0), new Uint8Array(capacity).fill(0xff), Uint8Array.of(9)];
  for (let i = 0; i < count; i++) {
    const nonce = new Uint8Array(Math.min(capacity, 8));
    nonce[0] = i >>> 8;
    nonce[1] = (i * 31) & 0xff;
    for (let b = 2; b < nonce.length; b++) nonce[b] = (i * 2654435761) >>> (8 * (b % 4));
    out.push(nonce);
  }
  return out;
}

describe('job blobs built for a push are byte for byte the straightforward build', () => {
  it('the native addon offers the one-call chain (the pool uses it)', () => {
    expect(fastHash?.chain).toBeDefined();
  });

  it.each(captured)('$name: every extra nonce, both parent styles', (t) => {
    for (const style of STYLES) {
      const fast = parse(t, style, true);
      const reference = parse(t, style, false);
      // Interleaved long and short nonces: a short one must not keep bytes of the one before.
      for (const nonce of extraNonces(fast.extraNonceCapacity, 200)) {
        const expected = bytesToHex(reference.buildJob(nonce).hashingBlob);
        expect(bytesToHex(fast.buildHashingBlob(nonce))).toBe(expected);
        expect(bytesToHex(fast.buildJob(nonce).hashingBlob)).toBe(expected);
      }
    }
  });

  it('any extra nonce of any length on the v9 template with a transaction', () => {
    const t = captured.find((x) => x.name.startsWith('71-'))!;
    const fast = parse(t, 'pool', true);
    const reference = parse(t, 'pool', false);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: fast.extraNonceCapacity }), (nonce) => {
        expect(bytesToHex(fast.buildHashingBlob(nonce))).toBe(
          bytesToHex(reference.buildJob(nonce).hashingBlob),
        );
      }),
      { numRuns: 500 },
    );
  });
});
