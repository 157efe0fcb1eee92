import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { encodeMergeMiningTag, findMergeMiningTag, parseTxExtra } from '../../src/fuego/tx-extra.js';
import { codeOf } from '../helpers/codec-error-code.js';

const key = 'a1'.repeat(32);
const root = 'b2'.repeat(32);

describe('parseTxExtra', () => {
  it('reads a daemon coinbase extra: pubkey, nonce, padding', () => {
    const fields = parseTxExtra(hexToBytes(`01${key}0208${'00'.repeat(8)}000000`));
    expect(fields).toEqual([
      { kind: 'publicKey', offset: 0, publicKey: hexToBytes(key) },
      { kind: 'nonce', offset: 33, nonce: new Uint8Array(8) },
      { kind: 'padding', offset: 43, zeroCount: 2 },
    ]);
  });

  it('reads the extra-nonce length as one raw byte, not a varint', () => {
    const data = 'cd'.repeat(0x81);
    const [field] = parseTxExtra(hexToBytes(`0281${data}`));
    expect(field).toEqual({ kind: 'nonce', offset: 0, nonce: hexToBytes(data) });
  });

  it('reads merge-mining tags, messages and TTL', () => {
    const fields = parseTxExtra(hexToBytes(`032100${root}04036162630502ac02`));
    expect(fields).toEqual([
      { kind: 'mergeMiningTag', offset: 0, depth: 0n, merkleRoot: hexToBytes(root) },
      { kind: 'message', offset: 35, data: hexToBytes('616263') },
      { kind: 'ttl', offset: 40, size: 2, ttl: 300n },
    ]);
  });

  it('ignores bytes after the root inside the mm tag body, as the daemon does', () => {
    const fields = parseTxExtra(hexToBytes(`032303${root}eeee01${key}`));
    expect(fields[0]).toEqual({ kind: 'mergeMiningTag', offset: 0, depth: 3n, merkleRoot: hexToBytes(root) });
    expect(fields[1]).toMatchObject({ kind: 'publicKey', offset: 37 });
  });

  it('skips unknown tags one byte at a time', () => {
    expect(parseTxExtra(hexToBytes(`0708de01${key}`))).toEqual([
      { kind: 'unknown', offset: 0, tag: 7 },
      { kind: 'unknown', offset: 1, tag: 8 },
      { kind: 'unknown', offset: 2, tag: 0xde },
      { kind: 'publicKey', offset: 3, publicKey: hexToBytes(key) },
    ]);
  });

  it('allows at most 254 padding zeros and only zeros', () => {
    expect(parseTxExtra(hexToBytes(`00${'00'.repeat(254)}`))).toEqual([
      { kind: 'padding', offset: 0, zeroCount: 254 },
    ]);
    expect(parseTxExtra(hexToBytes('00'))).toEqual([{ kind: 'padding', offset: 0, zeroCount: 0 }]);
    expect(codeOf(() => parseTxExtra(hexToBytes(`00${'00'.repeat(255)}`)))).toBe('INVALID_VALUE');
    expect(codeOf(() => parseTxExtra(hexToBytes('000001')))).toBe('INVALID_VALUE');
  });

  it('fails on truncated fields and bad varints', () => {
    expect(codeOf(() => parseTxExtra(hexToBytes('01aabb')))).toBe('TRUNCATED');
    expect(codeOf(() => parseTxExtra(hexToBytes('0205aabb')))).toBe('TRUNCATED');
    expect(codeOf(() => parseTxExtra(hexToBytes('02')))).toBe('TRUNCATED');
    expect(codeOf(() => parseTxExtra(hexToBytes(`032000${'00'.repeat(31)}`)))).toBe('TRUNCATED');
    expect(codeOf(() => parseTxExtra(hexToBytes('058002')))).toBe('VARINT_OVERFLOW');
    expect(codeOf(() => parseTxExtra(hexToBytes('04800001')))).toBe('VARINT_NON_CANONICAL');
    expect(parseTxExtra(new Uint8Array(0))).toEqual([]);
  });
});

describe('findMergeMiningTag', () => {
  it('finds the first tag', () => {
    const extra = hexToBytes(`01${key}032100${root}032101${'00'.repeat(32)}`);
    expect(findMergeMiningTag(extra)).toEqual({ depth: 0n, merkleRoot: hexToBytes(root) });
    expect(findMergeMiningTag(hexToBytes(`01${key}`))).toBeUndefined();
  });

  it('keeps a tag read before a malformed field, like getMergeMiningTagFromExtra', () => {
    expect(findMergeMiningTag(hexToBytes(`032100${root}0001`))).toEqual({
      depth: 0n,
      merkleRoot: hexToBytes(root),
    });
    expect(findMergeMiningTag(hexToBytes(`0001032100${root}`))).toBeUndefined();
    expect(findMergeMiningTag(hexToBytes('0321'))).toBeUndefined();
  });
});

describe('encodeMergeMiningTag', () => {
  it('is 03 21 00 <root> for depth 0', () => {
    expect(bytesToHex(encodeMergeMiningTag(0, hexToBytes(root)))).toBe(`032100${root}`);
  });
  it('encodes other depths as a varint inside the body', () => {
    const encoded = encodeMergeMiningTag(300n, hexToBytes(root));
    expect(bytesToHex(encoded)).toBe(`0322ac02${root}`);
    expect(parseTxExtra(encoded)).toEqual([
      { kind: 'mergeMiningTag', offset: 0, depth: 300n, merkleRoot: hexToBytes(root) },
    ]);
  });
  it('needs a 32-byte root', () => {
    expect(codeOf(() => encodeMergeMiningTag(0, new Uint8Array(31)))).toBe('INVALID_VALUE');
  });
});
