import { describe, expect, it } from 'vitest';
import { parseBlock } from '../../src/fuego/block.js';
import { checkMergeMiningTag, parentHashingBlob } from '../../src/fuego/block-hash.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { agentKeepsNonceTopByte } from '../../src/pool/miner-agent.js';
import type { PoolBackendOptions } from '../../src/pool/pool-backend.js';
import type { LoginRequest, StratumJob } from '../../src/pool/stratum-backend.js';
import { DEFAULT_POOL_BACKEND_OPTIONS } from '../helpers/config-defaults.js';
import {
  ADDRESS,
  activeTemplate,
  connection,
  FakeSink,
  fakePoolBackend,
  flushImmediates,
  hashUpx2,
  mine,
} from './pool-fakes.js';

/*
 * On a new template, XMRig 6 miners get a blob shared by up to 255 of them, each with its own top
 * nonce byte (blob byte 42), which XMRig keeps (shared/spec/stratum.md §6.4). The fakes' `mine`
 * keeps it as XMRig does.
 */

const HUGE = 1n << 60n;
/** The hex of the blob's byte 42 (the nonce's top byte). */
const TOP = [84, 86] as const;

function setup(options: Partial<PoolBackendOptions> = {}, networkDifficulty = HUGE) {
  const { clock, templates, ledger, daemon, backend } = fakePoolBackend(options, networkDifficulty);
  /** An XMRig 6 miner under vardiff at difficulty 1 (the test port's start difficulty). */
  async function login(request: Partial<LoginRequest> = {}, startDifficulty = 1) {
    const sink = new FakeSink();
    const full = { login: `${ADDRESS}.rig`, pass: 'x', agent: 'XMRig/6.16.0', algo: ['cn/upx2'], ...request };
    const result = await backend.login(full, connection({ startDifficulty }), sink);
    return { ...result, sink };
  }
  /** A new block: every session gets a job on it (the broadcast runs to its end). */
  async function newBlock(id: number, height: number): Promise<void> {
    templates.emit(activeTemplate(id, height, networkDifficulty), 'new-block');
    await flushImmediates(10);
  }
  function submit(sessionId: string, job: StratumJob, n: number) {
    const { nonce, result } = mine(job, n);
    return backend.submit(sessionId, { jobId: job.job_id, nonce, result });
  }
  return { clock, templates, ledger, daemon, backend, login, newBlock, submit };
}

/**
 * Vardiff with 1,000 s per share: a quiet miner stays at its difficulty for the minutes these
 * tests run, so its difficulty says its speed (difficulty ÷ 1,000 H/s).
 */
const VARDIFF = { ...DEFAULT_POOL_BACKEND_OPTIONS.vardiff, minDifficulty: 1, targetShareTimeSec: 1_000 };
const REFRESH_OPTIONS: Partial<PoolBackendOptions> = {
  proxyJobRefreshMs: 60_000,
  vardiff: VARDIFF,
  sharedJobs: { enabled: true, maxMinerHashrate: 200_000 },
};
const hashrateDifficulty = (hashesPerSec: number) => hashesPerSec * VARDIFF.targetShareTimeSec;
/** 2^24 nonces in 240 s: due a fresh job after 120 s. */
const HALF_LIFE_120_S = Math.ceil(hashrateDifficulty(2 ** 24 / 240));

function withTopByte(blob: string, byte: string): string {
  return blob.slice(0, TOP[0]) + byte + blob.slice(TOP[1]);
}

describe('jobs on a blob shared by many miners', () => {
  it('after a new block, XMRig miners share one blob, each with its own top nonce byte, and their shares are accepted', async () => {
    const { login, newBlock, submit, ledger, backend } = setup();
    const miners = [await login(), await login(), await login()];
    // The login job is the miner's own: a zero nonce field.
    for (const m of miners) expect(m.job.blob.slice(...TOP)).toBe('00');
    await newBlock(2, 11);
    const jobs = miners.map((m) => m.sink.jobs.at(-1)!);
    expect(jobs.map((j) => j.blob.slice(...TOP))).toEqual(['01', '02', '03']);
    expect(new Set(jobs.map((j) => withTopByte(j.blob, '00'))).size).toBe(1);
    expect(new Set(jobs.map((j) => j.job_id)).size).toBe(3);
    expect(new Set(jobs.map((j) => j.job_id.slice(0, -2))).size).toBe(1);
    // Three login jobs of their own, three on the shared blob.
    expect(backend.metrics).toMatchObject({ jobsIssued: 6, jobsIssuedShared: 3 });

    // The same nonce counter on each: three different nonces (the top byte), three shares.
    for (const [i, m] of miners.entries()) await submit(m.sessionId, jobs[i]!, 7);
    expect(ledger.shares).toHaveLength(3);
    expect(ledger.shares.every((s) => s.height === 11)).toBe(true);
  });

  it('a share carrying another miner’s top byte, or none, is refused as a NiceHash nonce', async () => {
    const { login, newBlock, backend } = setup();
    const a = await login();
    await login();
    await newBlock(2, 11);
    const job = a.sink.jobs.at(-1)!;
    expect(job.blob.slice(...TOP)).toBe('01');
    for (const top of ['02', '00']) {
      const blob = withTopByte(job.blob, top);
      const nonce = `070000${top}`;
      const input = hexToBytes(blob);
      input.set(hexToBytes(nonce), 39);
      const result = bytesToHex(hashUpx2(input));
      await expect(backend.submit(a.sessionId, { jobId: job.job_id, nonce, result })).rejects.toMatchObject({
        code: 'NICEHASH_NONCE',
        message: 'Invalid nonce; is miner not compatible with NiceHash?',
      });
    }
    expect(backend.metrics.sharesAccepted).toBe(0);
  });

  it('a miner that does not keep its top byte, whatever its agent says, gets a blob of its own at once and from then on', async () => {
    const { login, newBlock, backend, submit, ledger } = setup();
    const miner = await login();
    await newBlock(2, 11);
    const job = miner.sink.jobs.at(-1)!;
    expect(job.blob.slice(...TOP)).toBe('01');
    const input = hexToBytes(job.blob);
    input.set(hexToBytes('07000000'), 39);
    const result = bytesToHex(hashUpx2(input));
    await expect(
      backend.submit(miner.sessionId, { jobId: job.job_id, nonce: '07000000', result }),
    ).rejects.toMatchObject({ code: 'NICEHASH_NONCE' });

    expect(miner.sink.jobs).toHaveLength(2);
    const own = miner.sink.jobs.at(-1)!;
    expect(own.blob.slice(...TOP)).toBe('00');
    await submit(miner.sessionId, own, 7);
    expect(ledger.shares).toHaveLength(1);
    await newBlock(3, 12);
    expect(miner.sink.jobs.at(-1)!.blob.slice(...TOP)).toBe('00');
  });

  it('a block found on a shared blob is the template with the blob’s extra nonce and the full nonce, and carries the miner’s PoW', async () => {
    const { login, newBlock, submit, daemon, templates } = setup({}, 1n);
    const miners = [await login(), await login()];
    await newBlock(2, 11);
    const job = miners[1]!.sink.jobs.at(-1)!;
    const { nonce, result } = mine(job, 5);
    expect(nonce.slice(6)).toBe('02');
    await submit(miners[1]!.sessionId, job, 5);

    const extraNonce = hexToBytes(job.job_id.slice(0, -2));
    const expected = templates
      .current()!
      .template.buildSubmitBlob(extraNonce, Buffer.from(nonce, 'hex').readUInt32LE(0));
    expect(daemon.submitted).toEqual([bytesToHex(expected)]);
    const block = parseBlock(expected);
    expect(block.nonce >>> 24).toBe(2);
    expect(bytesToHex(hashUpx2(parentHashingBlob(block)))).toBe(result);
    expect(checkMergeMiningTag(block)).toBe(true);
  });

  it('255 miners per blob: the 256th starts a blob of its own extra nonce', async () => {
    const { login, newBlock } = setup();
    const miners = [];
    for (let i = 0; i < 257; i++) miners.push(await login());
    await newBlock(2, 11);
    const jobs = miners.map((m) => m.sink.jobs.at(-1)!);
    expect(jobs[0]!.blob.slice(...TOP)).toBe('01');
    expect(jobs[254]!.blob.slice(...TOP)).toBe('ff');
    expect(jobs[255]!.blob.slice(...TOP)).toBe('01');
    const blobs = new Set(jobs.map((j) => withTopByte(j.blob, '00')));
    expect(blobs.size).toBe(2);
    expect(new Set(jobs.map((j) => j.job_id)).size).toBe(257);
  });

  it('proxies, other miners, fixed difficulties, fast miners, and every miner when turned off get a blob of their own', async () => {
    const { login, newBlock } = setup({ sharedJobs: { enabled: true, maxMinerHashrate: 1_000 } });
    const own = [
      await login({ agent: 'xmrig-proxy/6.26.0' }),
      await login({ agent: 'XMRig/5.11.4 (Linux x86_64)' }),
      await login({ agent: 'SRBMiner-MULTI/2.4.1' }),
      await login({ login: `${ADDRESS}.rig+500` }),
      // 1,000 H/s at the default 30 s per share is difficulty 30,000: this one is above it.
      await login({}, 30_001),
    ];
    const shared = await login({}, 30_000);
    await newBlock(2, 11);
    expect(own.map((m) => m.sink.jobs.at(-1)!.blob.slice(...TOP))).toEqual(['00', '00', '00', '00', '00']);
    expect(shared.sink.jobs.at(-1)!.blob.slice(...TOP)).toBe('01');

    const off = setup({ sharedJobs: { enabled: false, maxMinerHashrate: 1_000 } });
    const miner = await off.login();
    await off.newBlock(2, 11);
    expect(miner.sink.jobs.at(-1)!.blob.slice(...TOP)).toBe('00');
  });

  it('only a broadcast shares blobs: getjob and a retarget give the miner a blob of its own', async () => {
    const { login, newBlock, backend } = setup();
    const miner = await login();
    await newBlock(2, 11);
    expect(miner.sink.jobs.at(-1)!.blob.slice(...TOP)).toBe('01');
    expect(backend.getJob(miner.sessionId).blob.slice(...TOP)).toBe('00');
  });

  it('the tick gives a shared-blob miner a fresh job once half its 2^24 nonces are gone at its speed, at most every refresh interval; slow miners wait for the next template', async () => {
    const { login, newBlock, backend, clock } = setup(REFRESH_OPTIONS);
    const fastest = await login({}, hashrateDifficulty(200_000)); // its nonces last 84 s: every 60 s
    const fast = [await login({}, HALF_LIFE_120_S), await login({}, HALF_LIFE_120_S)];
    const slow = await login({}, hashrateDifficulty(1_000)); // its nonces last 4.7 hours
    const own = await login({ login: `${ADDRESS}.rig+500` });
    await newBlock(2, 11);
    const tickAt = async (ms: number) => {
      clock.advance(ms);
      backend.tick();
      await flushImmediates(10);
    };
    await tickAt(59_000);
    expect([fastest, ...fast].map((m) => m.sink.jobs.length)).toEqual([1, 1, 1]);
    await tickAt(1_000);
    expect([fastest, ...fast].map((m) => m.sink.jobs.length)).toEqual([2, 1, 1]);
    await tickAt(59_000);
    expect([fastest, ...fast].map((m) => m.sink.jobs.length)).toEqual([2, 1, 1]);
    await tickAt(1_000);
    expect([fastest, ...fast].map((m) => m.sink.jobs.length)).toEqual([3, 2, 2]);
    const [first, second] = fast.map((m) => m.sink.jobs.at(-1)!);
    // A new blob (new extra nonce), still shared, still on the same template.
    expect(first!.job_id).not.toBe(fast[0]!.sink.jobs[0]!.job_id);
    expect(withTopByte(first!.blob, '00')).toBe(withTopByte(second!.blob, '00'));
    expect(first!.height).toBe(11);
    expect(slow.sink.jobs).toHaveLength(1);
    expect(own.sink.jobs).toHaveLength(1);
  });

  it('a refresh due while a new block is still being pushed waits, so that no miner misses the new block', async () => {
    const { login, newBlock, templates, backend, clock } = setup({
      ...REFRESH_OPTIONS,
      broadcastChunkSize: 1,
      broadcastSliceMs: 60_000,
    });
    const shared = [await login({}, HALF_LIFE_120_S), await login({}, HALF_LIFE_120_S)];
    const own = await login({ login: `${ADDRESS}.rig+500` });
    await newBlock(2, 11);
    clock.advance(120_000);
    // One session per event-loop turn: the tick comes while the push of height 12 has reached one.
    templates.emit(activeTemplate(3, 12, HUGE), 'new-block');
    backend.tick();
    await flushImmediates(10);
    for (const miner of [...shared, own]) expect(miner.sink.jobs.at(-1)!.height).toBe(12);
  });

  it('a miner vardiff would take above its highest difficulty gets a blob of its own: it may be any faster than that says', async () => {
    // Both held at 1 (every hash is a share), as a benchmark holds its miners: only speed tells them apart.
    const { login, newBlock, submit, clock } = setup({ vardiff: { ...VARDIFF, maxDifficulty: 1 } });
    const fast = await login();
    const steady = await login();
    // 32 shares in 10 s where one per 1,000 s was due: vardiff wants 4 times the difficulty.
    clock.advance(10_000);
    for (let n = 0; n < 32; n++) await submit(fast.sessionId, fast.job, n);
    expect(fast.sink.jobs).toHaveLength(0);
    await newBlock(2, 11);
    expect(fast.sink.jobs.at(-1)!.blob.slice(...TOP)).toBe('00');
    expect(steady.sink.jobs.at(-1)!.blob.slice(...TOP)).toBe('01');
  });

  it('a miner found faster than vardiff’s highest difficulty while on a shared blob gets a blob of its own at the next tick', async () => {
    const { login, newBlock, submit, clock, backend } = setup({ vardiff: { ...VARDIFF, maxDifficulty: 1 } });
    const fast = await login();
    await newBlock(2, 11);
    const shared = fast.sink.jobs.at(-1)!;
    expect(shared.blob.slice(...TOP)).toBe('01');
    clock.advance(10_000);
    for (let n = 0; n < 32; n++) await submit(fast.sessionId, shared, n);
    backend.tick();
    await flushImmediates(10);
    expect(fast.sink.jobs).toHaveLength(2);
    expect(fast.sink.jobs.at(-1)!.blob.slice(...TOP)).toBe('00');
  });

  it('knows which agents keep the top nonce byte: XMRig 6 and later', () => {
    expect(agentKeepsNonceTopByte('XMRig/6.16.0 (Linux x86_64) libuv/1.42.0 gcc/9.3.0')).toBe(true);
    expect(agentKeepsNonceTopByte('XMRig/6.21.0-mo1 (Windows NT 10.0; Win64; x64)')).toBe(true);
    expect(agentKeepsNonceTopByte('XMRig/10.0.0')).toBe(true);
    expect(agentKeepsNonceTopByte('XMRig/5.11.4')).toBe(false);
    expect(agentKeepsNonceTopByte('xmr-stak/2.10.8')).toBe(false);
    expect(agentKeepsNonceTopByte('')).toBe(false);
  });
});
