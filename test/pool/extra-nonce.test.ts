import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/fuego/hex.js';
import { ExtraNonceAllocator, ExtraNonceError } from '../../src/pool/extra-nonce.js';

describe('ExtraNonceAllocator', () => {
  it('writes the node id then a big-endian counter', () => {
    const allocator = new ExtraNonceAllocator({ nodeId: 0x0102, counterStart: 0x0a0b0c0d });
    // Capacity 7 (reserve_size 8): 2 bytes node id + 5 bytes counter.
    expect(bytesToHex(allocator.next(7))).toBe('0102000a0b0c0d');
    expect(bytesToHex(allocator.next(7))).toBe('0102000a0b0c0e');
    // Capacity 6: a 4-byte counter.
    expect(bytesToHex(allocator.next(6))).toBe('01020a0b0c0f');
    // Large areas use at most a 6-byte counter.
    expect(allocator.next(100)).toHaveLength(8);
  });

  it('never repeats within a process and never collides across node ids', () => {
    const seen = new Set<string>();
    for (const nodeId of [0, 1, 0xffff]) {
      const allocator = new ExtraNonceAllocator({ nodeId, counterStart: 0 });
      for (let i = 0; i < 5000; i++) seen.add(bytesToHex(allocator.next(7)));
    }
    expect(seen.size).toBe(15_000);
  });

  it('gives distinct values for any start and capacity (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 6, max: 20 }),
        (start, capacity) => {
          const allocator = new ExtraNonceAllocator({ nodeId: 7, counterStart: start });
          const a = bytesToHex(allocator.next(capacity));
          const b = bytesToHex(allocator.next(capacity));
          expect(a).not.toBe(b);
          expect(a.startsWith('0007')).toBe(true);
        },
      ),
    );
  });

  it('refuses an area too small for node id plus a 4-byte counter', () => {
    const allocator = new ExtraNonceAllocator({ nodeId: 1 });
    expect(() => allocator.next(5)).toThrow(expect.objectContaining({ code: 'AREA_TOO_SMALL' }));
  });

  it('refuses a node id outside uint16', () => {
    for (const nodeId of [-1, 65_536, 1.5]) {
      expect(() => new ExtraNonceAllocator({ nodeId })).toThrow(ExtraNonceError);
    }
  });
});
