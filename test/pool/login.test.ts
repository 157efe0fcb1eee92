import { describe, expect, it } from 'vitest';
import { AddressCache } from '../../src/pool/address-cache.js';
import { canMineUpx2, isUpx2AlgoName } from '../../src/pool/algo-names.js';
import { type ParsedLogin, parseLogin, sanitiseWorkerName } from '../../src/pool/login.js';
import type { LoginRequest } from '../../src/pool/stratum-backend.js';
import { ADDRESS, ADDRESS_2, INTEGRATED_ADDRESS } from './pool-fakes.js';

const limits = { minDifficulty: 100, maxDifficulty: 1_000_000 };

function parse(request: Partial<LoginRequest> & { login: string }): ParsedLogin {
  return parseLogin({ pass: 'x', ...request }, limits);
}

describe('parseLogin', () => {
  const cases: Array<{
    name: string;
    request: Partial<LoginRequest> & { login: string };
    payee: ParsedLogin['payee']['kind'];
    worker: string;
    diff?: number;
    solo?: boolean;
  }> = [
    { name: 'bare address', request: { login: ADDRESS }, payee: 'address', worker: 'default' },
    { name: 'address.worker', request: { login: `${ADDRESS}.rig1` }, payee: 'address', worker: 'rig1' },
    {
      name: 'address.worker+diff',
      request: { login: `${ADDRESS}.rig1+5000` },
      payee: 'address',
      worker: 'rig1',
      diff: 5000,
    },
    {
      name: 'address+diff',
      request: { login: `${ADDRESS}+5000` },
      payee: 'address',
      worker: 'default',
      diff: 5000,
    },
    {
      name: '+diff below min',
      request: { login: `${ADDRESS}+1` },
      payee: 'address',
      worker: 'default',
      diff: 100,
    },
    {
      name: '+diff above max',
      request: { login: `${ADDRESS}+999999999999` },
      payee: 'address',
      worker: 'default',
      diff: 1_000_000,
    },
    {
      name: 'rigid as worker',
      request: { login: ADDRESS, rigid: 'rig-a' },
      payee: 'address',
      worker: 'rig-a',
    },
    {
      name: 'login worker beats rigid',
      request: { login: `${ADDRESS}.w`, rigid: 'rig-a' },
      payee: 'address',
      worker: 'w',
    },
    {
      name: 'pass as worker',
      request: { login: ADDRESS, pass: 'garage' },
      payee: 'address',
      worker: 'garage',
    },
    {
      name: 'pass worker:email',
      request: { login: ADDRESS, pass: 'garage:me@example.com' },
      payee: 'address',
      worker: 'garage',
    },
    {
      name: 'pass "x" is no worker',
      request: { login: ADDRESS, pass: 'x' },
      payee: 'address',
      worker: 'default',
    },
    {
      name: 'rigid beats pass',
      request: { login: ADDRESS, rigid: 'r', pass: 'p' },
      payee: 'address',
      worker: 'r',
    },
    {
      name: 'odd worker characters are replaced',
      request: { login: `${ADDRESS}.my rig/1` },
      payee: 'address',
      worker: 'my_rig_1',
    },
    {
      name: 'solo: prefix',
      request: { login: `solo:${ADDRESS}.w` },
      payee: 'address',
      worker: 'w',
      solo: true,
    },
    {
      name: 'SOLO: prefix any case',
      request: { login: `SOLO:${ADDRESS}` },
      payee: 'address',
      worker: 'default',
      solo: true,
    },
    {
      name: 'integrated address',
      request: { login: `${INTEGRATED_ADDRESS}.w` },
      payee: 'address',
      worker: 'w',
    },
    { name: '@alias', request: { login: '@alice.rig+2000' }, payee: 'alias', worker: 'rig', diff: 2000 },
    { name: 'solo:@alias', request: { login: 'solo:@alice' }, payee: 'alias', worker: 'default', solo: true },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const parsed = parse(c.request);
      expect(parsed.payee.kind).toBe(c.payee);
      expect(parsed.worker).toBe(c.worker);
      expect(parsed.fixedDifficulty).toBe(c.diff);
      expect(parsed.solo).toBe(c.solo ?? false);
    });
  }

  it('keeps the address (and the payment id of an integrated one)', () => {
    const parsed = parse({ login: `${INTEGRATED_ADDRESS}+500` });
    expect(parsed.payee).toMatchObject({ kind: 'address', address: INTEGRATED_ADDRESS });
    if (parsed.payee.kind === 'address') expect(parsed.payee.decoded.type).toBe('integrated');
    expect(parse({ login: '@bob' }).payee).toEqual({ kind: 'alias', alias: 'bob' });
  });

  const invalid: Array<[string, string]> = [
    ['empty', ''],
    ['not an address', 'test'],
    ['bad checksum', `${ADDRESS.slice(0, -1)}A`],
    ['monero-like garbage', '4'.repeat(95)],
    ['too long', 'x'.repeat(600)],
    ['diff that is no number', `${ADDRESS}+abc`],
    ['bad alias', '@'],
    ['alias with odd characters', '@a$b'],
  ];
  for (const [name, login] of invalid) {
    it(`refuses ${name} with INVALID_LOGIN`, () => {
      expect(() => parse({ login })).toThrow(expect.objectContaining({ code: 'INVALID_LOGIN' }));
    });
  }
});

describe('worker names', () => {
  const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

  it('keeps letters and digits of any script, NFC-normalised', () => {
    expect(sanitiseWorkerName('Jörg-rig.2')).toBe('Jörg-rig.2');
    expect(sanitiseWorkerName('矿机1')).toBe('矿机1');
    expect(sanitiseWorkerName('риг_٣')).toBe('риг_٣');
    expect(sanitiseWorkerName('नमस्ते')).toBe('नमस्ते'); // combining vowel signs are part of the word
    // The same name typed decomposed (o + combining diaeresis) is the same worker.
    expect(sanitiseWorkerName('Jo\u0308rg')).toBe('J\u00f6rg');
    expect(parse({ login: `${ADDRESS}.Jo\u0308rg` }).worker).toBe('J\u00f6rg');
  });

  it('replaces control, format (bidi, zero-width), whitespace, symbol and markup characters with "_"', () => {
    expect(sanitiseWorkerName('a\u202eb')).toBe('a_b'); // right-to-left override
    expect(sanitiseWorkerName('a\u200bb\u200dc')).toBe('a_b_c'); // zero-width space and joiner
    expect(sanitiseWorkerName('a\u00a0b\u3000c\tz')).toBe('a_b_c_z');
    expect(sanitiseWorkerName('a\u0000b\u0085c')).toBe('a_b_c');
    expect(sanitiseWorkerName('rig🎉')).toBe('rig_');
    expect(sanitiseWorkerName('<b>&"\'{x}:*?')).toBe('_b_____x____');
    expect(sanitiseWorkerName('\ud800x')).toBe('_x'); // a lone surrogate
  });

  it('is at most 64 bytes of UTF-8, cut between characters', () => {
    expect(sanitiseWorkerName('x'.repeat(100))).toBe('x'.repeat(64));
    const han = sanitiseWorkerName('矿'.repeat(30));
    expect(han).toBe('矿'.repeat(21));
    expect(utf8Bytes(han)).toBe(63);
    expect(sanitiseWorkerName('é'.repeat(40))).toBe('é'.repeat(32));
    // A long decomposed name is cut after it is composed.
    expect(sanitiseWorkerName('e\u0301'.repeat(40))).toBe('\u00e9'.repeat(32));
  });
});

describe('algorithm names', () => {
  it('accepts cn/upx2 and its aliases in any case, nothing else', () => {
    for (const name of [
      'cn/upx2',
      'CN/UPX2',
      'cryptonight/upx2',
      'cn-extremelite/upx2',
      'Cryptonight-UPX/2',
    ]) {
      expect(isUpx2AlgoName(name)).toBe(true);
    }
    for (const name of ['cn', 'cryptonight', 'cn/0', 'cn/2', 'rx/0', '', 42])
      expect(isUpx2AlgoName(name)).toBe(false);
  });

  it('login policy: absent list is fine, a list must name cn/upx2', () => {
    expect(canMineUpx2(undefined)).toBe(true);
    expect(canMineUpx2(['rx/0', 'cn-extremelite/upx2'])).toBe(true);
    expect(canMineUpx2(['rx/0', 'cn/2'])).toBe(false);
    expect(canMineUpx2([])).toBe(false);
  });
});

describe('AddressCache', () => {
  it('validates once, keeps the most recently used, refuses invalid ones every time', () => {
    const cache = new AddressCache(2);
    expect(cache.decode(ADDRESS).type).toBe('standard');
    expect(cache.decode(INTEGRATED_ADDRESS).type).toBe('integrated');
    expect(cache.decode(ADDRESS).type).toBe('standard');
    cache.decode(ADDRESS_2);
    expect(cache.size).toBe(2);
    for (let i = 0; i < 2; i++) {
      expect(() => cache.decode(`${ADDRESS.slice(0, -1)}A`)).toThrow(
        expect.objectContaining({ code: 'INVALID_LOGIN' }),
      );
    }
    expect(cache.size).toBe(2);
  });

  it('is what parseLogin uses when given', () => {
    const cache = new AddressCache(10);
    parseLogin(
      { login: `${ADDRESS}.w`, pass: 'x' },
      { ...limits, decodeAddress: (text) => cache.decode(text) },
    );
    expect(cache.size).toBe(1);
  });
});
