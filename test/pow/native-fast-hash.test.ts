import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBlockTemplate } from '../../src/fuego/block-template.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { cnFastHash } from '../../src/fuego/keccak.js';
import { nativeFastHash } from '../../src/pow/native-fast-hash.js';
import { readJsonFixture } from '../helpers/fixtures.js';

describe('native cn_fast_hash for job building', () => {
  const fastHash = nativeFastHash();

  it('loads (the addon is built) and equals the pure keccak on any input', () => {
    expect(fastHash).toBeDefined();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (data) => {
        expect(bytesToHex(fastHash!(data))).toBe(bytesToHex(cnFastHash(data)));
      }),
    );
  });

  it('writes in place at an offset, touching nothing else, and refuses an offset without room', () => {
    const into = fastHash!.into!;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(40), (data, offset) => {
        const out = new Uint8Array(72).fill(0xee);
        into(data, out, offset);
        expect(bytesToHex(out.subarray(offset, offset + 32))).toBe(bytesToHex(cnFastHash(data)));
        expect([...out.subarray(0, offset), ...out.subarray(offset + 32)].every((b) => b === 0xee)).toBe(
          true,
        );
      }),
    );
    // Hashing a buffer into itself is fine (the addon hashes before it writes).
    const self = new Uint8Array(64).fill(1);
    const expected = bytesToHex(cnFastHash(self));
    into(self, self, 16);
    expect(bytesToHex(self.subarray(16, 48))).toBe(expected);
    for (const offset of [-1, 1.5, 41, Number.NaN]) {
      expect(() => into(new Uint8Array(4), new Uint8Array(72), offset)).toThrow(RangeError);
    }
  });

  it('runs a chain with a kept prefix state: each call equals the pure keccak, the suffix changing between calls', () => {
    const chain = fastHash!.chain!;
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 600 }),
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }),
        fc.nat(4),
        fc.nat(3),
        (source, suffixes, blocksWanted, depth) => {
          const blocks = Math.min(blocksWanted, Math.floor(source.length / 136));
          const len = source.length;
          const branch = new Uint8Array(32 * depth).map((_, i) => (i * 13 + 5) & 0xff);
          const cacheAt = len + branch.length + 32;
          const work = new Uint8Array(cacheAt + 201);
          work.set(source, 0);
          work.set(branch, len);
          const steps = Uint32Array.of(1, 0, len, len, depth, len + branch.length, cacheAt, blocks);
          for (const suffix of suffixes) {
            // Only bytes after the kept blocks change from call to call (the extra nonce).
            const at = Math.max(136 * blocks, len - suffix.length);
            work.set(suffix.subarray(0, len - at), at);
            let expected = cnFastHash(work.subarray(0, len));
            for (let d = depth - 1; d >= 0; d--) {
              expected = cnFastHash(Uint8Array.from([...expected, ...branch.subarray(32 * d, 32 * d + 32)]));
            }
            const out = new Uint8Array(32);
            chain(work, steps, out, len + branch.length);
            expect(bytesToHex(out)).toBe(bytesToHex(expected));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses chain steps that do not fit the work buffer', () => {
    const chain = fastHash!.chain!;
    const work = new Uint8Array(400);
    const out = new Uint8Array(32);
    for (const steps of [
      Uint32Array.of(1, 0, 100, 100, 0, 200), // six words: the old shape
      Uint32Array.of(1, 0, 401, 0, 0, 200, 0, 0), // source past the end
      Uint32Array.of(1, 0, 100, 0, 0, 380, 0, 0), // root past the end
      Uint32Array.of(1, 0, 100, 0, 0, 200, 250, 1), // kept blocks longer than the source
      Uint32Array.of(1, 0, 300, 0, 0, 0, 250, 1), // cache past the end
    ]) {
      expect(() => chain(work, steps, out, 0)).toThrow(RangeError);
    }
    expect(() => chain(work, Uint32Array.of(0), new Uint8Array(32), 380)).toThrow(RangeError);
  });

  it('builds byte-identical jobs and blocks from the v9 pool-flow vector', () => {
    const { block_v9_pool_flow: flow } = readJsonFixture<{
      block_v9_pool_flow: {
        template: { blocktemplate_blob: string; reserved_offset: number; reserve_size: number };
        pool_extra_nonce_written_at_reserved_offset: string;
        hashing_blob_for_miner: string;
        submitblock_blob: string;
        miner_nonce_uint32: number;
      };
    }>('vectors/format.json');
    const input = {
      blob: hexToBytes(flow.template.blocktemplate_blob),
      parentStyle: 'pool' as const,
      reservedOffset: flow.template.reserved_offset,
      reserveSize: flow.template.reserve_size,
    };
    const template = parseBlockTemplate({ ...input, fastHash: fastHash! });
    const extraNonce = hexToBytes(flow.pool_extra_nonce_written_at_reserved_offset);
    expect(bytesToHex(template.buildJob(extraNonce).hashingBlob)).toBe(flow.hashing_blob_for_miner);
    expect(bytesToHex(template.buildHashingBlob(extraNonce))).toBe(flow.hashing_blob_for_miner);
    expect(bytesToHex(template.buildSubmitBlob(extraNonce, flow.miner_nonce_uint32))).toBe(
      flow.submitblock_blob,
    );
  });
});
