import { describe, expect, it } from 'vitest';
import { parseLogin } from '../../src/pool/login.js';
import { ADDRESS } from './pool-fakes.js';

const limits = { minDifficulty: 100, maxDifficulty: 1_000_000 };

/**
 * Pools disagree on the order of a worker name and a fixed difficulty in the login; a miner who
 * moves here with `ADDRESS+DIFF.WORKER` (cryptonote-nodejs-pool takes the address from it) was
 * refused with "Invalid address used for login", though its address is right.
 */
describe('parseLogin, fixed difficulty before the worker name', () => {
  it('takes ADDRESS+DIFF.WORKER as ADDRESS.WORKER+DIFF', () => {
    const parsed = parseLogin({ login: `${ADDRESS}+5000.rig1`, pass: 'x' }, limits);
    expect(parsed).toMatchObject({ payee: { kind: 'address', address: ADDRESS }, worker: 'rig1' });
    expect(parsed.fixedDifficulty).toBe(5000);
    const solo = parseLogin({ login: `solo:${ADDRESS}+200.a.b`, pass: 'x' }, limits);
    expect(solo).toMatchObject({ payee: { address: ADDRESS }, worker: 'a.b', solo: true });
    expect(solo.fixedDifficulty).toBe(200);
  });
});
