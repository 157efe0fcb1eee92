import { describe, expect, it } from 'vitest';
import { BinaryReader } from '../../src/fuego/binary-reader.js';
import { BinaryWriter } from '../../src/fuego/binary-writer.js';
import { CodecError } from '../../src/fuego/errors.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import {
  decodeVarint,
  decodeVarintNumber,
  encodeVarint,
  type VarintWidth,
  varintLength,
} from '../../src/fuego/varint.js';
import { codeOf } from '../helpers/codec-error-code.js';

describe('varint encoding', () => {
  it.each([
    [0n, '00'],
    [1n, '01'],
    [127n, '7f'],
    [128n, '8001'],
    [300n, 'ac02'],
    [16384n, '808001'],
    [1750000000n, '80c3bbc206'],
    [1753191n, 'e7806b'],
    [0xffffffffn, 'ffffffff0f'],
    [(1n << 64n) - 1n, 'ffffffffffffffffff01'],
  ])('%s <-> %s', (value, encoded) => {
    expect(bytesToHex(encodeVarint(value))).toBe(encoded);
    expect(varintLength(value)).toBe(encoded.length / 2);
    expect(decodeVarint(hexToBytes(encoded), 0)).toEqual({ value, length: encoded.length / 2 });
    if (value <= BigInt(Number.MAX_SAFE_INTEGER))
      expect(bytesToHex(encodeVarint(Number(value)))).toBe(encoded);
  });

  it('refuses values outside uint64 and unsafe numbers', () => {
    expect(codeOf(() => encodeVarint(-1))).toBe('INVALID_VALUE');
    expect(codeOf(() => encodeVarint(1n << 64n))).toBe('INVALID_VALUE');
    expect(codeOf(() => encodeVarint(2 ** 53))).toBe('INVALID_VALUE');
    expect(codeOf(() => encodeVarint(1.5))).toBe('INVALID_VALUE');
  });

  it('decodes at an offset and as a number', () => {
    expect(decodeVarint(hexToBytes('ffac02ff'), 1)).toEqual({ value: 300n, length: 2 });
    expect(decodeVarintNumber(hexToBytes('ac02'), 0, 16)).toEqual({ value: 300, length: 2 });
  });
});

describe('varint decoding rejects what the daemon rejects', () => {
  const cases: [string, VarintWidth, string][] = [
    ['ff01', 8, 'OK'], // 255
    ['8002', 8, 'VARINT_OVERFLOW'], // 256
    ['ff81', 8, 'VARINT_OVERFLOW'], // continuation where no more bytes fit
    ['ffff03', 16, 'OK'], // 65535
    ['808004', 16, 'VARINT_OVERFLOW'], // 65536
    ['ffffffff0f', 32, 'OK'],
    ['ffffffff10', 32, 'VARINT_OVERFLOW'],
    ['ffffffffffffffffff01', 64, 'OK'],
    ['ffffffffffffffffff02', 64, 'VARINT_OVERFLOW'],
    ['ffffffffffffffffff81', 64, 'VARINT_OVERFLOW'],
    ['8000', 64, 'VARINT_NON_CANONICAL'],
    ['ff00', 64, 'VARINT_NON_CANONICAL'],
    ['808000', 64, 'VARINT_NON_CANONICAL'],
    ['8000', 8, 'VARINT_NON_CANONICAL'],
    ['', 64, 'TRUNCATED'],
    ['80', 64, 'TRUNCATED'],
    ['ffff', 32, 'TRUNCATED'],
  ];
  it.each(cases)('%s as uint%s: %s', (encoded, width, code) => {
    expect(codeOf(() => decodeVarint(hexToBytes(encoded), 0, width))).toBe(code);
  });

  it('reports where decoding stopped', () => {
    try {
      new BinaryReader(hexToBytes('00018000'), 2).readVarint();
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CodecError);
      expect((error as CodecError).data['offset']).toBe(3);
    }
  });
});

describe('BinaryReader', () => {
  it('reads fixed fields and tracks the offset', () => {
    const reader = new BinaryReader(hexToBytes(`07401b0000${'aa'.repeat(32)}03616263`));
    expect(reader.readU8()).toBe(7);
    expect(reader.readU32LE()).toBe(6976);
    expect(bytesToHex(reader.readHash32())).toBe('aa'.repeat(32));
    expect(reader.offset).toBe(37);
    expect(bytesToHex(reader.readVarBytes())).toBe('616263');
    expect(reader.remaining).toBe(0);
    reader.assertEnd();
  });

  it('reads u32 values with the top bit set as unsigned', () => {
    expect(new BinaryReader(hexToBytes('ffffffff')).readU32LE()).toBe(0xffffffff);
  });

  it('throws TRUNCATED with the offset when data runs out', () => {
    const reader = new BinaryReader(hexToBytes('0102'));
    reader.readU8();
    try {
      reader.readU32LE();
      expect.unreachable();
    } catch (error) {
      expect((error as CodecError).code).toBe('TRUNCATED');
      expect((error as CodecError).data['offset']).toBe(1);
    }
    expect(reader.offset).toBe(1);
    expect(codeOf(() => reader.readBytes(2))).toBe('TRUNCATED');
    expect(codeOf(() => reader.readHash32())).toBe('TRUNCATED');
  });

  it('treats a vector count beyond the data as TRUNCATED', () => {
    expect(codeOf(() => new BinaryReader(hexToBytes('05aabbcc')).readCount(1))).toBe('TRUNCATED');
    expect(codeOf(() => new BinaryReader(hexToBytes('ffffffffffffffffff01')).readCount(32))).toBe(
      'TRUNCATED',
    );
    expect(new BinaryReader(hexToBytes('02aabb')).readCount(1)).toBe(2);
  });

  it('assertEnd throws TRAILING_BYTES', () => {
    const reader = new BinaryReader(hexToBytes('0102'));
    reader.readU8();
    expect(codeOf(() => reader.assertEnd())).toBe('TRAILING_BYTES');
  });

  it('returns copies, never views of the input', () => {
    const input = hexToBytes('aabb');
    const bytes = new BinaryReader(input).readBytes(2);
    input[0] = 0;
    expect(bytesToHex(bytes)).toBe('aabb');
  });

  it('refuses an offset outside the data', () => {
    expect(codeOf(() => new BinaryReader(new Uint8Array(2), 3))).toBe('INVALID_VALUE');
  });
});

describe('BinaryWriter', () => {
  it('grows and returns exactly what was written', () => {
    const writer = new BinaryWriter(1);
    for (let i = 0; i < 100; i++) writer.writeU8(i);
    writer
      .writeU32LE(0x12345678)
      .writeVarint(300)
      .writeVarint(1n << 63n)
      .writeBytes(Uint8Array.of(9));
    const bytes = writer.toBytes();
    expect(bytes.length).toBe(writer.length);
    expect(bytes.length).toBe(100 + 4 + 2 + 10 + 1);
    expect(bytesToHex(bytes.subarray(100))).toBe('78563412ac0280808080808080808001' + '09');
  });

  it('validates values against their field width', () => {
    expect(codeOf(() => new BinaryWriter().writeVarint(256, 8))).toBe('INVALID_VALUE');
    expect(codeOf(() => new BinaryWriter().writeVarint(255, 8))).toBe('OK');
    expect(codeOf(() => new BinaryWriter().writeVarint(2 ** 32, 32))).toBe('INVALID_VALUE');
    expect(codeOf(() => new BinaryWriter().writeU8(256))).toBe('INVALID_VALUE');
    expect(codeOf(() => new BinaryWriter().writeU32LE(-1))).toBe('INVALID_VALUE');
    expect(codeOf(() => new BinaryWriter().writeHash32(new Uint8Array(31)))).toBe('INVALID_VALUE');
  });
});
