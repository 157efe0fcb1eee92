import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../src/servers/stratum/line-splitter.js';

describe('LineSplitter', () => {
  it('joins lines split across chunks and drops empty lines and CR', () => {
    const splitter = new LineSplitter(1024);
    expect(splitter.push(Buffer.from('{"id":1}\n{"id"'))).toEqual(['{"id":1}']);
    expect(splitter.push(Buffer.from(':2}\r\n\n\n{"id":3}\n'))).toEqual(['{"id":2}', '{"id":3}']);
  });

  it('refuses a line longer than the limit, even without a newline', () => {
    const splitter = new LineSplitter(16);
    expect(splitter.push(Buffer.from('x'.repeat(10)))).toEqual([]);
    expect(splitter.push(Buffer.from('x'.repeat(10)))).toBeUndefined();
    expect(new LineSplitter(16).push(Buffer.from(`${'y'.repeat(17)}\n`))).toBeUndefined();
  });

  it('yields the same lines whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z{}":0-9]{1,40}$/), { maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 50 }),
        (lines, cuts) => {
          const stream = Buffer.from(lines.map((l) => `${l}\n`).join(''));
          const splitter = new LineSplitter(64);
          const out: string[] = [];
          let offset = 0;
          let i = 0;
          while (offset < stream.length) {
            const size = cuts[i++ % cuts.length] ?? 1;
            out.push(...(splitter.push(stream.subarray(offset, offset + size)) ?? []));
            offset += size;
          }
          expect(out).toEqual(lines);
        },
      ),
    );
  });
});
