import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AddressError,
  decodeAddress,
  encodeAddress,
  encodeIntegratedAddress,
  FUEGO_ADDRESS_PREFIX,
} from '../../src/fuego/address.js';
import { BASE58_ALPHABET, encodeBase58 } from '../../src/fuego/base58.js';
import { isValidEd25519Point } from '../../src/fuego/ed25519-point.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { cnFastHash } from '../../src/fuego/keccak.js';
import { readJsonFixture } from '../helpers/fixtures.js';

interface AddressVector {
  address: string;
  type?: string;
  prefix?: number;
  prefix_varint?: string;
  spend_public_key?: string;
  view_public_key?: string;
  payment_id_ascii_hex?: string;
  checksum?: string;
}

const vectors = readJsonFixture<{ addresses: AddressVector[] }>('vectors/format.json').addresses;
const standardVectors = vectors.filter((v) => v.type === undefined && v.address.length === 98);
const [integratedVector] = vectors.filter((v) => v.type === 'integrated');
const [invalidVector] = vectors.filter((v) => v.address.length === 115);
const [firstStandard] = standardVectors;

function errorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AddressError) return error.code;
    throw error;
  }
  return undefined;
}

/** LEB128 varint, only for building other networks' addresses in tests. */
function varint(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

/** base58(varint(prefix) ‖ payload ‖ keccak4), the generic CryptoNote construction. */
function encodeRaw(prefix: number, payload: Uint8Array): string {
  const body = Uint8Array.from([...varint(prefix), ...payload]);
  return encodeBase58(Uint8Array.from([...body, ...cnFastHash(body).subarray(0, 4)]));
}

describe('Fuego address vectors', () => {
  it('has the vectors this suite expects', () => {
    expect(standardVectors).toHaveLength(2);
    expect(integratedVector).toBeDefined();
    expect(invalidVector).toBeDefined();
  });

  it('the prefix varint is e7 80 6b', () => {
    expect(bytesToHex(Uint8Array.from(varint(FUEGO_ADDRESS_PREFIX)))).toBe('e7806b');
    for (const vector of standardVectors) expect(vector.prefix_varint).toBe('e7806b');
  });

  it.each(standardVectors)('decodes the real standard address $address', (vector) => {
    const decoded = decodeAddress(vector.address);
    expect(decoded).toEqual({
      type: 'standard',
      prefix: vector.prefix,
      spendPublicKey: vector.spend_public_key,
      viewPublicKey: vector.view_public_key,
    });
    const body = Uint8Array.from([
      0xe7,
      0x80,
      0x6b,
      ...hexToBytes(decoded.spendPublicKey),
      ...hexToBytes(decoded.viewPublicKey),
    ]);
    expect(bytesToHex(cnFastHash(body).subarray(0, 4))).toBe(vector.checksum);
    expect(encodeAddress(decoded)).toBe(vector.address);
  });

  it('decodes the integrated vector and re-encodes it to the same text', () => {
    const vector = integratedVector!;
    const decoded = decodeAddress(vector.address);
    expect(decoded).toEqual({
      type: 'integrated',
      prefix: FUEGO_ADDRESS_PREFIX,
      paymentId: vector.payment_id_ascii_hex,
      spendPublicKey: vector.spend_public_key,
      viewPublicKey: vector.view_public_key,
    });
    expect(vector.address).toHaveLength(186);
    expect(
      encodeIntegratedAddress({
        paymentId: vector.payment_id_ascii_hex!,
        spendPublicKey: vector.spend_public_key!,
        viewPublicKey: vector.view_public_key!,
      }),
    ).toBe(vector.address);
  });

  it('rejects the 115-character placeholder', () => {
    expect(errorCode(() => decodeAddress(invalidVector!.address))).toBe('WRONG_LENGTH');
  });
});

describe('Fuego address rejections', () => {
  const good = firstStandard!.address;

  it('a changed character gives BAD_CHECKSUM', () => {
    // The last digit of a block changes its value by one: no overflow, only the checksum breaks.
    const index = 10;
    const replaced = good[index] === '2' ? '3' : '2';
    const changed = `${good.slice(0, index)}${replaced}${good.slice(index + 1)}`;
    expect(errorCode(() => decodeAddress(changed))).toBe('BAD_CHECKSUM');
  });

  it('no single-character substitution is accepted', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: good.length - 1 }),
        fc.constantFrom(...BASE58_ALPHABET),
        (index, char) => {
          fc.pre(good[index] !== char);
          const changed = `${good.slice(0, index)}${char}${good.slice(index + 1)}`;
          expect(['BAD_CHECKSUM', 'BAD_ENCODING']).toContain(errorCode(() => decodeAddress(changed)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each(['O', '0', 'I', 'l'])('character %s gives BAD_CHARACTER with its position', (char) => {
    const changed = `${good.slice(0, 16)}${char}${good.slice(17)}`;
    try {
      decodeAddress(changed);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AddressError);
      expect((error as AddressError).code).toBe('BAD_CHARACTER');
      expect((error as AddressError).data).toMatchObject({ character: char, position: 17 });
      expect((error as AddressError).message).toBe(`invalid character '${char}' at position 17`);
    }
  });

  it('a well-formed Monero (prefix 18) address gives WRONG_PREFIX', () => {
    const keys = hexToBytes(`${firstStandard!.spend_public_key}${firstStandard!.view_public_key}`);
    const monero = encodeRaw(18, keys);
    expect(monero).toHaveLength(95);
    expect(monero.startsWith('4')).toBe(true);
    try {
      decodeAddress(monero);
      expect.unreachable();
    } catch (error) {
      expect((error as AddressError).code).toBe('WRONG_PREFIX');
      expect((error as AddressError).message).toBe("prefix 18 is not Fuego's 1753191");
    }
  });

  it('another prefix of the same varint width (98 characters) gives WRONG_PREFIX', () => {
    const keys = hexToBytes(`${firstStandard!.spend_public_key}${firstStandard!.view_public_key}`);
    const other = encodeRaw(FUEGO_ADDRESS_PREFIX + 1, keys);
    expect(other).toHaveLength(98);
    expect(errorCode(() => decodeAddress(other))).toBe('WRONG_PREFIX');
  });

  it('truncated, extended or empty text gives WRONG_LENGTH', () => {
    expect(errorCode(() => decodeAddress(good.slice(0, 97)))).toBe('WRONG_LENGTH');
    expect(errorCode(() => decodeAddress(good.slice(0, 90)))).toBe('WRONG_LENGTH');
    expect(errorCode(() => decodeAddress(`${good}1`))).toBe('WRONG_LENGTH');
    expect(errorCode(() => decodeAddress(''))).toBe('WRONG_LENGTH');
    expect(errorCode(() => decodeAddress(good.repeat(1000)))).toBe('WRONG_LENGTH');
    expect(errorCode(() => decodeAddress(42 as unknown as string))).toBe('WRONG_LENGTH');
    expect(errorCode(() => decodeAddress(integratedVector!.address.slice(0, 185)))).toBe('WRONG_LENGTH');
  });

  it('a 98-character text whose blocks overflow gives BAD_ENCODING', () => {
    const overflow = `zzzzzzzzzzz${good.slice(11)}`;
    expect(errorCode(() => decodeAddress(overflow))).toBe('BAD_ENCODING');
  });

  it('an integrated address whose payment id is not hex gives BAD_PAYMENT_ID', () => {
    const vector = integratedVector!;
    const paymentId = new TextEncoder().encode(`${'g'.repeat(2)}${vector.payment_id_ascii_hex!.slice(2)}`);
    const keys = hexToBytes(`${vector.spend_public_key}${vector.view_public_key}`);
    const text = encodeRaw(FUEGO_ADDRESS_PREFIX, Uint8Array.from([...paymentId, ...keys]));
    expect(text).toHaveLength(186);
    expect(errorCode(() => decodeAddress(text))).toBe('BAD_PAYMENT_ID');
    const base = { spendPublicKey: vector.spend_public_key!, viewPublicKey: vector.view_public_key! };
    expect(errorCode(() => encodeIntegratedAddress({ ...base, paymentId: 'zz'.repeat(32) }))).toBe(
      'BAD_PAYMENT_ID',
    );
    expect(errorCode(() => encodeIntegratedAddress({ ...base, paymentId: 'ab' }))).toBe('BAD_PAYMENT_ID');
  });

  it('accepts an uppercase hex payment id and reports it in lowercase', () => {
    const vector = integratedVector!;
    const upper = new TextEncoder().encode(vector.payment_id_ascii_hex!.toUpperCase());
    const keys = hexToBytes(`${vector.spend_public_key}${vector.view_public_key}`);
    const decoded = decodeAddress(encodeRaw(FUEGO_ADDRESS_PREFIX, Uint8Array.from([...upper, ...keys])));
    expect(decoded.type === 'integrated' && decoded.paymentId).toBe(vector.payment_id_ascii_hex);
  });

  it('keys that are not ed25519 points give BAD_KEY (unless the check is off)', () => {
    const notAPoint = `01${'00'.repeat(30)}80`; // y = 1 gives x = 0, which cannot carry the sign bit
    expect(isValidEd25519Point(hexToBytes(notAPoint))).toBe(false);
    const keys = { spendPublicKey: firstStandard!.spend_public_key!, viewPublicKey: notAPoint };
    expect(errorCode(() => encodeAddress(keys))).toBe('BAD_KEY');
    const text = encodeAddress(keys, { checkKeys: false });
    expect(errorCode(() => decodeAddress(text))).toBe('BAD_KEY');
    expect(decodeAddress(text, { checkKeys: false }).viewPublicKey).toBe(notAPoint);
    expect(errorCode(() => encodeAddress({ ...keys, viewPublicKey: 'abc' }, { checkKeys: false }))).toBe(
      'BAD_KEY',
    );
  });
});

describe('Fuego address round trips', () => {
  const point = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter(isValidEd25519Point).map(bytesToHex);
  const anyKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(bytesToHex);
  const paymentId = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(bytesToHex);

  it('standard addresses of valid points', () => {
    fc.assert(
      fc.property(point, point, (spendPublicKey, viewPublicKey) => {
        const text = encodeAddress({ spendPublicKey, viewPublicKey });
        expect(text).toHaveLength(98);
        expect(text.startsWith('fire')).toBe(true);
        expect(decodeAddress(text)).toEqual({
          type: 'standard',
          prefix: FUEGO_ADDRESS_PREFIX,
          spendPublicKey,
          viewPublicKey,
        });
      }),
      { numRuns: 100 },
    );
  });

  it('integrated addresses of valid points', () => {
    fc.assert(
      fc.property(point, point, paymentId, (spendPublicKey, viewPublicKey, id) => {
        const text = encodeIntegratedAddress({ spendPublicKey, viewPublicKey, paymentId: id });
        expect(text).toHaveLength(186);
        expect(decodeAddress(text)).toEqual({
          type: 'integrated',
          prefix: FUEGO_ADDRESS_PREFIX,
          paymentId: id,
          spendPublicKey,
          viewPublicKey,
        });
      }),
      { numRuns: 100 },
    );
  });

  it('any 32-byte keys when the point check is off', () => {
    fc.assert(
      fc.property(anyKey, anyKey, paymentId, (spendPublicKey, viewPublicKey, id) => {
        const options = { checkKeys: false };
        const standard = encodeAddress({ spendPublicKey, viewPublicKey }, options);
        expect(decodeAddress(standard, options)).toMatchObject({ spendPublicKey, viewPublicKey });
        const integrated = encodeIntegratedAddress({ spendPublicKey, viewPublicKey, paymentId: id }, options);
        expect(decodeAddress(integrated, options)).toMatchObject({
          paymentId: id,
          spendPublicKey,
          viewPublicKey,
        });
      }),
      { numRuns: 100 },
    );
  });
});

describe('ed25519 point check (the daemon check_key)', () => {
  const ff = 'ff'.repeat(30);

  it('accepts real ed25519 public keys', () => {
    for (let i = 0; i < 20; i++) {
      const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
      expect(isValidEd25519Point(new Uint8Array(Buffer.from(jwk.x!, 'base64url')))).toBe(true);
    }
    expect(isValidEd25519Point(hexToBytes(`58${'66'.repeat(31)}`))).toBe(true); // the base point
  });

  it('accepts the small-order points the daemon accepts (no subgroup check)', () => {
    expect(isValidEd25519Point(hexToBytes(`01${'00'.repeat(31)}`))).toBe(true); // identity
    expect(isValidEd25519Point(hexToBytes('00'.repeat(32)))).toBe(true); // y = 0, order 4
    expect(isValidEd25519Point(hexToBytes(`ec${ff}7f`))).toBe(true); // y = p - 1
  });

  it('rejects non-canonical y, x = 0 with the sign bit, and wrong sizes', () => {
    expect(isValidEd25519Point(hexToBytes(`ed${ff}7f`))).toBe(false); // y = p
    expect(isValidEd25519Point(hexToBytes(`ff${ff}7f`))).toBe(false); // y = 2^255 - 1
    expect(isValidEd25519Point(hexToBytes(`01${'00'.repeat(30)}80`))).toBe(false);
    expect(isValidEd25519Point(hexToBytes(`ec${ff}ff`))).toBe(false); // y = p - 1, x = 0, sign set
    expect(isValidEd25519Point(new Uint8Array(31))).toBe(false);
  });

  it('about half of all 32-byte strings are points', () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        if (isValidEd25519Point(bytes)) valid++;
      }),
      { numRuns: 400, seed: 7 },
    );
    expect(valid).toBeGreaterThan(140);
    expect(valid).toBeLessThan(260);
  });
});
