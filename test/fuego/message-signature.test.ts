import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/devnet/wallet/ed25519-keys.js';
import { generateSignature, signMessage } from '../../src/devnet/wallet/message-signer.js';
import { encodeAddress } from '../../src/fuego/address.js';
import { decodeBase58 } from '../../src/fuego/base58.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { checkSignature } from '../../src/fuego/signature.js';
import {
  decodeSignatureText,
  messageHash,
  SIGNATURE_TEXT_LENGTH,
  type SignatureTextErrorCode,
  verifyMessageSignature,
} from '../../src/fuego/signed-message.js';
import { readJsonFixture } from '../helpers/fixtures.js';

// Vectors from Fuego's own crypto (usexfg/fuego @ 3c32d98d); how: the file's `provenance`.
interface SignatureVectors {
  keys: {
    spendSecretKey: string;
    spendPublicKey: string;
    viewSecretKey: string;
    viewPublicKey: string;
    address: string;
  }[];
  vectors: {
    kind: 'sign_message' | 'invalid' | 'chosen-nonce' | 'torsion';
    note: string;
    message: string;
    address: string;
    publicKey: string;
    prefixHash: string;
    signatureHex: string;
    signature: string;
    valid: boolean;
    reason: 'bad-signature' | 'bad-format' | 'too-long' | 'truncated' | null;
    nonce?: string;
  }[];
}

const FIXTURE = readJsonFixture<SignatureVectors>('vectors/message-signatures.json');
const ALICE = FIXTURE.keys[0]!;

function textErrorCode(text: string): SignatureTextErrorCode | undefined {
  try {
    decodeSignatureText(text);
    return undefined;
  } catch (error) {
    return (error as { code: SignatureTextErrorCode }).code;
  }
}

describe('check_signature against Fuego vectors', () => {
  it('derives the same public keys and addresses as the wallet', () => {
    for (const keys of FIXTURE.keys) {
      expect(bytesToHex(publicKeyOf(hexToBytes(keys.spendSecretKey)))).toBe(keys.spendPublicKey);
      expect(bytesToHex(publicKeyOf(hexToBytes(keys.viewSecretKey)))).toBe(keys.viewPublicKey);
      expect(encodeAddress(keys)).toBe(keys.address);
    }
  });

  const checked = FIXTURE.vectors.filter((v) => v.reason === null || v.reason === 'bad-signature');
  it.each(checked.map((v) => [`${v.kind}: ${v.note} (${v.message.slice(0, 24)})`, v] as const))(
    '%s',
    (_name, vector) => {
      expect(bytesToHex(messageHash(vector.message))).toBe(vector.prefixHash);
      const signature = hexToBytes(vector.signatureHex);
      expect(checkSignature(hexToBytes(vector.prefixHash), hexToBytes(vector.publicKey), signature)).toBe(
        vector.valid,
      );
      expect(verifyMessageSignature(vector.message, vector.address, vector.signature)).toBe(vector.valid);
    },
  );

  it('covers valid and refused signatures, non-canonical scalars and keys outside the subgroup', () => {
    expect(checked.filter((v) => v.valid).length).toBeGreaterThanOrEqual(10);
    expect(checked.filter((v) => !v.valid).length).toBeGreaterThanOrEqual(7);
    expect(checked.filter((v) => v.kind === 'torsion').map((v) => v.valid)).toContain(true);
    expect(checked.filter((v) => v.kind === 'torsion').map((v) => v.valid)).toContain(false);
  });

  it('signs byte for byte like generate_signature given the same nonce', () => {
    const chosen = FIXTURE.vectors.filter((v) => v.kind === 'chosen-nonce');
    expect(chosen.length).toBe(3);
    for (const vector of chosen) {
      const secret = FIXTURE.keys.find((k) => k.address === vector.address)!.spendSecretKey;
      const nonce = BigInt(`0x${bytesToHex(hexToBytes(vector.nonce!).reverse())}`);
      const signature = generateSignature(hexToBytes(vector.prefixHash), hexToBytes(secret), nonce);
      expect(bytesToHex(signature)).toBe(vector.signatureHex);
      expect(signMessage(vector.message, secret, nonce)).toBe(vector.signature);
    }
  });
});

describe('the sign_message text', () => {
  it('is "Sig" and exactly 88 base58 characters; anything else is refused with a code', () => {
    const byReason = (reason: string) => FIXTURE.vectors.find((v) => v.reason === reason)!;
    expect(textErrorCode(byReason('bad-format').signature)).toBe('BAD_PREFIX');
    expect(textErrorCode(byReason('truncated').signature)).toBe('TRUNCATED');
    expect(textErrorCode(byReason('too-long').signature)).toBe('TOO_LONG');
    expect(textErrorCode(`Sig${'0'.repeat(88)}`)).toBe('BAD_ENCODING'); // '0' is not base58
    expect(textErrorCode(`Sig${'z'.repeat(88)}`)).toBe('BAD_ENCODING'); // blocks above 2^64
    expect(() => verifyMessageSignature('m', ALICE.address, 'Sig')).toThrow(/characters/);
  });

  it("as simplewallet prints it: the first 91 characters are the signature, the rest is the wallet's memory", () => {
    const vector = FIXTURE.vectors.find((v) => v.reason === 'too-long')!;
    const signature = vector.signature.slice(0, SIGNATURE_TEXT_LENGTH);
    expect(verifyMessageSignature(vector.message, vector.address, signature)).toBe(true);
    // Why the pool never takes more: after the message hash and the public keys comes the spend
    // secret key (of this test wallet).
    const tail = bytesToHex(decodeBase58(vector.signature.slice(3)).subarray(64));
    expect(tail.slice(0, 64)).toBe(vector.prefixHash);
    expect(tail.slice(192, 200)).toBe(ALICE.spendSecretKey.slice(0, 8));
  });

  it('property: a signed message verifies; another message, key or changed byte does not', () => {
    const bob = FIXTURE.keys[1]!;
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.integer({ min: 3, max: 90 }), (message, position) => {
        const text = signMessage(message, ALICE.spendSecretKey);
        expect(verifyMessageSignature(message, ALICE.address, text)).toBe(true);
        expect(verifyMessageSignature(`${message}.`, ALICE.address, text)).toBe(false);
        expect(verifyMessageSignature(message, bob.address, text)).toBe(false);
        const changed = text[position] === '2' ? '3' : '2';
        const tampered = text.slice(0, position) + changed + text.slice(position + 1);
        expect(
          textErrorCode(tampered) !== undefined || !verifyMessageSignature(message, ALICE.address, tampered),
        ).toBe(true);
      }),
      { numRuns: 15 },
    );
  });
});
