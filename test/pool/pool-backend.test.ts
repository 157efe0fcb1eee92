import { describe, expect, it, vi } from 'vitest';
import { parseBlock } from '../../src/fuego/block.js';
import { blockId, checkMergeMiningTag, parentHashingBlob } from '../../src/fuego/block-hash.js';
import { checkHash, difficultyFromTargetHex } from '../../src/fuego/difficulty.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { manualBan } from '../../src/pool/ban-registry.js';
import { PoolBackend, type PoolBackendOptions } from '../../src/pool/pool-backend.js';
import type { ConnectionInfo, LoginRequest, StratumJob } from '../../src/pool/stratum-backend.js';
import { RpcError } from '../../src/rpc/rpc-error.js';
import { DEFAULT_BAN_POLICY_OPTIONS, DEFAULT_POOL_BACKEND_OPTIONS } from '../helpers/config-defaults.js';
import {
  ADDRESS,
  ADDRESS_2,
  activeTemplate,
  connection,
  FakeBanRegistry,
  FakeDaemon,
  FakeLedger,
  FakeSink,
  FakeTemplateSource,
  FakeVerifier,
  flushImmediates,
  hashUpx2,
  INTEGRATED_ADDRESS,
  mine,
  type SubmitBehaviour,
  silentLogger,
  TestClock,
} from './pool-fakes.js';

/** Far above any hash the tests compute: shares are never blocks. */
const HUGE = 1n << 60n;

interface SetupOptions {
  networkDifficulty?: bigint;
  noTemplate?: boolean;
  options?: Partial<PoolBackendOptions>;
  logger?: Logger;
  /** A clock for intervals apart from the wall clock (by default the one test clock is both). */
  elapsedClock?: TestClock;
}

function setup(setupOptions: SetupOptions = {}) {
  const clock = new TestClock();
  const templates = new FakeTemplateSource(
    setupOptions.noTemplate === true
      ? undefined
      : activeTemplate(1, 10, setupOptions.networkDifficulty ?? HUGE),
  );
  const verifier = new FakeVerifier();
  const ledger = new FakeLedger();
  const daemon = new FakeDaemon();
  daemon.aliases.set('alice', ADDRESS_2);
  const bans = new FakeBanRegistry({ clock: clock.now });
  const options: PoolBackendOptions = {
    ...DEFAULT_POOL_BACKEND_OPTIONS,
    vardiff: { ...DEFAULT_POOL_BACKEND_OPTIONS.vardiff, minDifficulty: 1 },
    minLoginDifficulty: 1,
    extraNonceStart: 0,
    ban: { ...DEFAULT_BAN_POLICY_OPTIONS, enabled: false },
    ...setupOptions.options,
  };
  const backend = new PoolBackend(options, {
    templates,
    verifier,
    ledger,
    daemon,
    logger: setupOptions.logger ?? silentLogger,
    clock: clock.now,
    elapsedClock: (setupOptions.elapsedClock ?? clock).now,
    bans,
  });

  /** Logs in with XMRig-like defaults; `withoutAlgo` leaves the algo list out (an old miner). */
  async function login(
    request: Partial<LoginRequest> & { withoutAlgo?: true } = {},
    conn: Partial<ConnectionInfo> = {},
  ) {
    const sink = new FakeSink();
    const { withoutAlgo, ...fields } = request;
    const full: LoginRequest = {
      login: `${ADDRESS}.rig+1`,
      pass: 'x',
      agent: 'XMRig/6.16.0',
      algo: ['cn/upx2', 'rx/0'],
      ...fields,
    };
    const { algo: _algo, ...noAlgo } = full;
    const result = await backend.login(withoutAlgo ? noAlgo : full, connection(conn), sink);
    return { ...result, sink };
  }

  /** A correct share for `job` with nonce value `n`. */
  function submitMined(sessionId: string, job: StratumJob, n: number) {
    const { nonce, result } = mine(job, n);
    return backend.submit(sessionId, { jobId: job.job_id, nonce, result });
  }

  return { clock, templates, verifier, ledger, daemon, bans, backend, login, submitMined };
}

/** The first nonce value from `from` on whose hash `accept` holds. */
function firstNonce(job: StratumJob, accept: (hash: Uint8Array) => boolean, from = 0): number {
  for (let n = from; ; n++) if (accept(hexToBytes(mine(job, n).result))) return n;
}

describe('PoolBackend login', () => {
  it('returns a string session id, a complete cn/upx2 job and the extensions', async () => {
    const { login } = setup();
    const result = await login();
    expect(typeof result.sessionId).toBe('string');
    expect(result.extensions).toEqual(['algo', 'keepalive']);
    expect(result.job).toMatchObject({ algo: 'cn/upx2', height: 10, target: 'ffffffff' });
    expect(hexToBytes(result.job.blob)).toHaveLength(76);
    expect(result.job.blob.slice(78, 86)).toBe('00000000');
  });

  it('starts at the port difficulty unless the login fixes one', async () => {
    const { login } = setup();
    const port = await login({ login: ADDRESS }, { startDifficulty: 5000 });
    expect(difficultyFromTargetHex(port.job.target)).toBe(5000n);
    const fixed = await login({ login: `${ADDRESS}+20000` }, { startDifficulty: 5000 });
    expect(difficultyFromTargetHex(fixed.job.target)).toBe(20000n);
  });

  it('refuses with the right codes', async () => {
    const { backend, bans, clock, login } = setup();
    await expect(login({ algo: ['rx/0', 'cn/2'] })).rejects.toMatchObject({ code: 'NO_COMPATIBLE_ALGO' });
    await expect(login({ login: 'not-an-address' })).rejects.toMatchObject({ code: 'INVALID_LOGIN' });
    await expect(login({ login: '@nobody' })).rejects.toMatchObject({ code: 'ALIAS_NOT_FOUND' });
    await bans.ban(manualBan('10.0.0.1', 60, 'manual', clock.now()));
    await expect(login()).rejects.toMatchObject({ code: 'BANNED' });
    expect(backend.metrics.loginsRefused).toMatchObject({
      NO_COMPATIBLE_ALGO: 1,
      INVALID_LOGIN: 1,
      ALIAS_NOT_FOUND: 1,
      BANNED: 1,
    });
  });

  it('says NO_TEMPLATE before the first template', async () => {
    const { login } = setup({ noTemplate: true });
    await expect(login()).rejects.toMatchObject({ code: 'NO_TEMPLATE' });
  });

  it('never hands out jobs on a template miners cannot mine (pre-upx2 block version)', async () => {
    const { login, templates } = setup({ noTemplate: true });
    templates.emit(activeTemplate(1, 3, HUGE, 0, 2), 'new-block');
    await expect(login()).rejects.toMatchObject({ code: 'NO_TEMPLATE' });
    templates.emit(activeTemplate(2, 10, HUGE), 'new-block');
    await expect(login()).resolves.toBeDefined();
  });

  it('accepts an algo alias, no algo list, and integrated addresses', async () => {
    const { login } = setup();
    await expect(login({ algo: ['CN-ExtremeLite/UPX2'] })).resolves.toBeDefined();
    await expect(login({ withoutAlgo: true })).resolves.toBeDefined();
    await expect(login({ login: `${INTEGRATED_ADDRESS}.w` })).resolves.toBeDefined();
  });

  it('pays an @alias login to the resolved address, solo when asked', async () => {
    const { ledger, login, submitMined } = setup();
    const session = await login({ login: 'solo:@alice.garage+1' });
    await submitMined(session.sessionId, session.job, 1);
    expect(ledger.shares[0]).toMatchObject({ address: ADDRESS_2, worker: 'garage', solo: true });
  });

  it('without an alias endpoint: ALIAS_UNAVAILABLE for @alias, everything else still works', async () => {
    const { daemon, login } = setup();
    daemon.aliasEndpoint = 'missing';
    await expect(login({ login: '@alice' })).rejects.toMatchObject({ code: 'ALIAS_UNAVAILABLE' });
    await expect(login({ login: ADDRESS })).resolves.toBeDefined();
  });
});

describe('PoolBackend share pipeline', () => {
  it('accepts a valid share once it is durable and records it at the job difficulty', async () => {
    const { backend, ledger, login, submitMined, daemon } = setup();
    const { sessionId, job } = await login({ rigid: 'ignored' });
    await submitMined(sessionId, job, 7);
    expect(ledger.shares).toEqual([
      expect.objectContaining({
        address: ADDRESS,
        worker: 'rig',
        difficulty: 1,
        height: 10,
        stale: false,
        solo: false,
      }),
    ]);
    expect(daemon.submitted).toEqual([]);
    expect(backend.metrics).toMatchObject({ sharesAccepted: 1, sharesStale: 0, blocksFound: 0 });
  });

  it('UNAUTHENTICATED for an unknown session', async () => {
    const { backend } = setup();
    await expect(
      backend.submit('nope', { jobId: 'x', nonce: '00000000', result: '0'.repeat(64) }),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(() => backend.getJob('nope')).toThrow(expect.objectContaining({ code: 'UNAUTHENTICATED' }));
    expect(() => backend.keepalive('nope')).toThrow(expect.objectContaining({ code: 'UNAUTHENTICATED' }));
  });

  it('INVALID_JOB_ID for a job the session never had, even one of another session', async () => {
    const { backend, login } = setup();
    const a = await login();
    const b = await login();
    const share = { nonce: '00000000', result: '0'.repeat(64) };
    await expect(backend.submit(a.sessionId, { jobId: 'nonsense', ...share })).rejects.toMatchObject({
      code: 'INVALID_JOB_ID',
    });
    await expect(backend.submit(a.sessionId, { jobId: b.job.job_id, ...share })).rejects.toMatchObject({
      code: 'INVALID_JOB_ID',
    });
  });

  it('BLOCK_EXPIRED for a job dropped from the last jobsPerSession', async () => {
    const { backend, login } = setup();
    const { sessionId, job } = await login();
    for (let i = 0; i < 4; i++) backend.getJob(sessionId);
    await expect(
      backend.submit(sessionId, { jobId: job.job_id, nonce: '00000000', result: '0'.repeat(64) }),
    ).rejects.toMatchObject({ code: 'BLOCK_EXPIRED' });
  });

  it('MALFORMED_NONCE, MALFORMED_RESULT and WRONG_ALGO are checked before hashing', async () => {
    const { backend, login, verifier } = setup();
    const { sessionId, job } = await login();
    const result = '0'.repeat(64);
    for (const nonce of ['', '0000000', '000000000', 'zzzzzzzz', '0x000000']) {
      await expect(backend.submit(sessionId, { jobId: job.job_id, nonce, result })).rejects.toMatchObject({
        code: 'MALFORMED_NONCE',
      });
    }
    for (const bad of ['', '0'.repeat(63), 'g'.repeat(64), '0'.repeat(65)]) {
      await expect(
        backend.submit(sessionId, { jobId: job.job_id, nonce: '00000000', result: bad }),
      ).rejects.toMatchObject({ code: 'MALFORMED_RESULT' });
    }
    await expect(
      backend.submit(sessionId, { jobId: job.job_id, nonce: '00000000', result, algo: 'cn/2' }),
    ).rejects.toMatchObject({ code: 'WRONG_ALGO' });
    expect(verifier.calls).toBe(0);
  });

  it('accepts the algo field when it names cn/upx2 in any spelling, and upper-case hex', async () => {
    const { backend, login, ledger } = setup();
    const { sessionId, job } = await login();
    const { nonce, result } = mine(job, 3);
    await backend.submit(sessionId, {
      jobId: job.job_id,
      nonce: nonce.toUpperCase(),
      result: result.toUpperCase(),
      algo: 'cryptonight-upx/2',
    });
    expect(ledger.shares).toHaveLength(1);
  });

  it('DUPLICATE_SHARE per (job, nonce), whatever the case of the hex', async () => {
    const { backend, login, submitMined } = setup();
    const { sessionId, job } = await login();
    await submitMined(sessionId, job, 5);
    const { nonce, result } = mine(job, 5);
    await expect(
      backend.submit(sessionId, { jobId: job.job_id, nonce: nonce.toUpperCase(), result }),
    ).rejects.toMatchObject({ code: 'DUPLICATE_SHARE' });
    // The same nonce on another job of the same session is another share (another blob).
    const next = backend.getJob(sessionId);
    await expect(submitMined(sessionId, next, 5)).resolves.toBeUndefined();
  });

  it('two identical submits in flight: exactly one passes, the other is a duplicate, one hash', async () => {
    const { login, submitMined, verifier, ledger } = setup();
    const { sessionId, job } = await login();
    const outcomes = await Promise.allSettled([
      submitMined(sessionId, job, 9),
      submitMined(sessionId, job, 9),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'DUPLICATE_SHARE' });
    expect(verifier.calls).toBe(1);
    expect(ledger.shares).toHaveLength(1);
  });

  it('INVALID_RESULT when the hash differs from the miner’s result', async () => {
    const { backend, login } = setup();
    const { sessionId, job } = await login();
    const { nonce } = mine(job, 11);
    const { result: otherResult } = mine(job, 12);
    await expect(
      backend.submit(sessionId, { jobId: job.job_id, nonce, result: otherResult }),
    ).rejects.toMatchObject({
      code: 'INVALID_RESULT',
    });
  });

  it('LOW_DIFFICULTY when the hash does not meet the job difficulty', async () => {
    const { login, submitMined, ledger } = setup();
    const { sessionId, job } = await login({ login: `${ADDRESS}+1000000000` });
    await expect(submitMined(sessionId, job, 1)).rejects.toMatchObject({ code: 'LOW_DIFFICULTY' });
    expect(ledger.shares).toEqual([]);
  });

  it('SERVER_BUSY when the verifier is full, and the share can be sent again', async () => {
    const { login, submitMined, verifier, ledger } = setup();
    const { sessionId, job } = await login();
    verifier.failWith = Object.assign(new Error('queue full'), { code: 'QUEUE_FULL' });
    await expect(submitMined(sessionId, job, 2)).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    verifier.failWith = new Error('worker died');
    await expect(submitMined(sessionId, job, 2)).rejects.toMatchObject({ code: 'INTERNAL' });
    verifier.failWith = undefined;
    await submitMined(sessionId, job, 2);
    expect(ledger.shares).toHaveLength(1);
  });

  it('INTERNAL when the ledger cannot make the share durable (the miner is never told OK)', async () => {
    const { login, submitMined, ledger } = setup();
    const { sessionId, job } = await login();
    ledger.fail = true;
    await expect(submitMined(sessionId, job, 4)).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('counts every refusal by code', async () => {
    const { backend, login } = setup();
    const { sessionId, job } = await login();
    await backend.submit(sessionId, { jobId: job.job_id, nonce: 'bad', result: '' }).catch(() => undefined);
    await backend.submit('nope', { jobId: job.job_id, nonce: 'bad', result: '' }).catch(() => undefined);
    expect(backend.metrics.sharesRejected).toEqual({ MALFORMED_NONCE: 1, UNAUTHENTICATED: 1 });
  });

  it('canAcceptSubmits follows the verifier', () => {
    const { backend, verifier } = setup();
    expect(backend.canAcceptSubmits('198.51.100.7')).toBe(true);
    verifier.accepting = false;
    expect(backend.canAcceptSubmits('198.51.100.7')).toBe(false);
  });

  it('proxies and NiceHash rigs may use the whole 32-bit nonce', async () => {
    const { login, submitMined, ledger } = setup();
    const proxy = await login({ agent: 'xmrig-proxy/6.26.0' });
    await submitMined(proxy.sessionId, proxy.job, 0xab000001);
    await submitMined(proxy.sessionId, proxy.job, 0xcd000001);
    expect(ledger.shares).toHaveLength(2);
  });
});

describe('PoolBackend block candidates', () => {
  it('submits exactly the blob buildSubmitBlob gives and records the candidate with its block id', async () => {
    // Network difficulty 1: every valid share is a block.
    const { backend, templates, login, submitMined, daemon, ledger } = setup({ networkDifficulty: 1n });
    const { sessionId, job } = await login();
    const { nonce, result } = mine(job, 21);
    await submitMined(sessionId, job, 21);

    const active = templates.current()!;
    const expectedBlob = active.template.buildSubmitBlob(
      hexToBytes(job.job_id),
      Buffer.from(nonce, 'hex').readUInt32LE(0),
    );
    expect(daemon.submitted).toEqual([bytesToHex(expectedBlob)]);

    const block = parseBlock(expectedBlob);
    // The submitted block carries the PoW the miner computed, and a valid merge-mining tag.
    expect(bytesToHex(hashUpx2(parentHashingBlob(block)))).toBe(result);
    expect(checkMergeMiningTag(block)).toBe(true);

    expect(ledger.candidates).toHaveLength(1);
    expect(ledger.candidates[0]).toMatchObject({
      height: 10,
      hash: bytesToHex(blockId(block)),
      prevHash: active.prevHash,
      networkDifficulty: 1n,
      submitResult: 'accepted',
      share: expect.objectContaining({ address: ADDRESS, stale: false, difficulty: 1 }),
      blobHex: bytesToHex(expectedBlob),
    });
    expect(ledger.candidates[0]).not.toHaveProperty('submitError');
    // The candidate records the share too; no separate recordShare.
    expect(ledger.shares).toEqual([]);
    expect(backend.metrics).toMatchObject({ blocksFound: 1, blocksAccepted: 1, sharesAccepted: 1 });
  });

  it('only shares meeting the network difficulty become candidates', async () => {
    const { login, daemon, ledger, backend } = setup({ networkDifficulty: 2n });
    // Refused, so that the template stays current (an accepted block turns its other blocks stale).
    daemon.submitBehaviour = 'reject';
    const { sessionId, job } = await login();
    let blocks = 0;
    let shares = 0;
    for (let n = 0; n < 6; n++) {
      const { nonce, result } = mine(job, n);
      await backend.submit(sessionId, { jobId: job.job_id, nonce, result });
      if (checkHash(hexToBytes(result), 2n)) blocks++;
      else shares++;
    }
    expect(ledger.candidates).toHaveLength(blocks);
    expect(daemon.submitted).toHaveLength(blocks);
    expect(ledger.shares).toHaveLength(shares);
  });

  it('a miner’s difficulty above the network’s loses no block: +4 on a network of 2 mines at 2', async () => {
    const { login, daemon, ledger, backend } = setup({ networkDifficulty: 2n });
    const { sessionId, job } = await login({ login: `${ADDRESS}+4` });
    expect(difficultyFromTargetHex(job.target)).toBe(2n);
    // A hash that meets the network but not the miner's own difficulty.
    const n = firstNonce(job, (hash) => checkHash(hash, 2n) && !checkHash(hash, 4n));
    await expect(backend.submit(sessionId, { jobId: job.job_id, ...mine(job, n) })).resolves.toBeUndefined();
    expect(daemon.submitted).toHaveLength(1);
    expect(ledger.candidates).toEqual([
      expect.objectContaining({
        share: expect.objectContaining({ difficulty: 2 }),
        submitResult: 'accepted',
      }),
    ]);
    expect(backend.metrics).toMatchObject({ blocksFound: 1, sharesAccepted: 1 });
  });

  it('a block the daemon refuses (-7) is still recorded, as rejected; the share is still OK', async () => {
    const { login, submitMined, daemon, ledger, backend } = setup({ networkDifficulty: 1n });
    daemon.submitBehaviour = 'reject';
    const { sessionId, job } = await login();
    await expect(submitMined(sessionId, job, 1)).resolves.toBeUndefined();
    expect(ledger.candidates[0]).toMatchObject({
      submitResult: 'rejected',
      submitError: expect.stringContaining('-7'),
    });
    expect(backend.metrics.blocksRejected).toBe(1);
  });

  it('after an accepted block, another block on its template is credited as a stale share and never submitted', async () => {
    // Network difficulty 1: every valid share is a block.
    const { login, submitMined, daemon, ledger, backend, templates, clock } = setup({
      networkDifficulty: 1n,
    });
    const { sessionId, job, sink } = await login();
    await submitMined(sessionId, job, 1);
    expect(daemon.submitted).toHaveLength(1);

    // Before the template source sees the new tip: the same job, and a job given out meanwhile.
    clock.advance(50);
    await submitMined(sessionId, job, 2);
    const meanwhile = backend.getJob(sessionId);
    await submitMined(sessionId, meanwhile, 1);
    expect(daemon.submitted).toHaveLength(1);
    expect(ledger.candidates).toHaveLength(1);
    expect(ledger.shares).toEqual([
      expect.objectContaining({ stale: true, height: 10 }),
      expect.objectContaining({ stale: true, height: 10 }),
    ]);
    expect(backend.metrics).toMatchObject({ blocksFound: 1, sharesAccepted: 3, sharesStale: 2 });

    // The next tip's jobs can be blocks again.
    templates.emit(activeTemplate(2, 11, 1n), 'new-block');
    const next = sink.jobs.at(-1)!;
    await submitMined(sessionId, next, 1);
    expect(daemon.submitted).toHaveLength(2);
    expect(ledger.candidates.at(-1)).toMatchObject({ height: 11, submitResult: 'accepted' });
  });

  /** Two blocks on one job (network difficulty 1) hashed at once, so both reach the freshness check together. */
  async function twoBlocksInFlight(submitBehaviour: SubmitBehaviour) {
    const kit = setup({ networkDifficulty: 1n });
    kit.daemon.submitBehaviour = submitBehaviour;
    const { sessionId, job } = await kit.login();
    kit.verifier.pause();
    const inFlight = [1, 2].map((n) => kit.backend.submit(sessionId, { jobId: job.job_id, ...mine(job, n) }));
    await flushImmediates();
    kit.verifier.resume();
    await Promise.all(inFlight);
    return kit;
  }

  it('two blocks on one template in flight together: the second waits for the first’s answer and is credited as stale', async () => {
    const { daemon, ledger } = await twoBlocksInFlight('accept');
    expect(daemon.submitted).toHaveLength(1);
    expect(ledger.candidates).toEqual([expect.objectContaining({ submitResult: 'accepted' })]);
    expect(ledger.shares).toEqual([expect.objectContaining({ stale: true })]);
  });

  it('a refused block leaves its template current: the next block on it is submitted', async () => {
    const { daemon, ledger } = await twoBlocksInFlight('reject');
    expect(daemon.submitted).toHaveLength(2);
    expect(ledger.candidates.map((c) => c.submitResult)).toEqual(['rejected', 'rejected']);
  });

  it('a daemon that hangs on a block holds the next block on its tip back for a second at most', async () => {
    const { login, daemon, backend, submitMined } = setup({ networkDifficulty: 1n });
    const { sessionId, job } = await login();
    let answerFirst: (() => void) | undefined;
    const submitBlock = daemon.submitBlock.bind(daemon);
    daemon.submitBlock = async (blockHex) => {
      if (answerFirst === undefined) await new Promise<void>((resolve) => (answerFirst = resolve));
      return submitBlock(blockHex);
    };
    const first = submitMined(sessionId, job, 1);
    await vi.waitFor(() => expect(answerFirst).toBeDefined());
    const startedMs = Date.now();
    await backend.submit(sessionId, { jobId: job.job_id, ...mine(job, 2) });
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(900);
    expect(daemon.submitted).toHaveLength(1);
    answerFirst!();
    await first;
    expect(daemon.submitted).toHaveLength(2);
  });

  it('a submitblock without an answer is recorded as error (the block may still have landed)', async () => {
    const { login, submitMined, daemon, ledger, backend } = setup({ networkDifficulty: 1n });
    daemon.submitBehaviour = 'transport';
    const { sessionId, job } = await login();
    await submitMined(sessionId, job, 1);
    expect(ledger.candidates[0]).toMatchObject({
      submitResult: 'error',
      submitError: expect.stringContaining('RPC_TIMEOUT'),
    });
    expect(backend.metrics.blockSubmitErrors).toBe(1);
  });
});

describe('PoolBackend explains a block the daemon refuses', () => {
  const TIP_HEIGHT = 9;

  /** Network difficulty 1 (every share is a block), a daemon that refuses, a logger kept in memory. */
  async function refusedBlock(chain: (daemon: FakeDaemon, prevHash: string) => void) {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const kit = setup({ networkDifficulty: 1n, logger });
    kit.daemon.submitBehaviour = 'reject';
    chain(kit.daemon, kit.templates.current()!.prevHash);
    const { sessionId, job } = await kit.login();
    const { result } = mine(job, 3);
    await kit.submitMined(sessionId, job, 3);
    const candidate = kit.ledger.candidates[0]!;
    await vi.waitFor(() => expect(kit.ledger.refusals).toHaveLength(1));
    const errors = lines.filter((line) => line['level'] === 50);
    return { ...kit, candidate, powHash: result, errors };
  }

  it('tip unchanged and block not on the chain: pow-disagreement, logged once at error with what was checked', async () => {
    const { candidate, powHash, errors, ledger, backend } = await refusedBlock((daemon, prevHash) => {
      daemon.tip = { height: TIP_HEIGHT, hash: prevHash };
    });
    expect(candidate).toMatchObject({ submitResult: 'rejected', blobHex: expect.stringMatching(/^09/) });
    expect(ledger.refusals).toEqual([{ blockHash: candidate.hash, reason: 'pow-disagreement' }]);
    expect(backend.metrics).toMatchObject({ blocksRejected: 1, blocksRefused: { 'pow-disagreement': 1 } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      blockId: candidate.hash,
      height: 10,
      powHash,
      target: 'f'.repeat(64),
      networkDifficulty: '1',
      tipMoved: false,
      onChain: false,
      reason: 'pow-disagreement',
      likelyCause: expect.stringContaining('-O2'),
    });
  });

  it('the tip moved since the template: stale-tip', async () => {
    const { ledger, backend, errors } = await refusedBlock((daemon) => {
      daemon.tip = { height: TIP_HEIGHT + 1, hash: 'ee'.repeat(32) };
      daemon.mainChain.set(TIP_HEIGHT + 1, 'ee'.repeat(32));
    });
    expect(ledger.refusals[0]?.reason).toBe('stale-tip');
    expect(backend.metrics.blocksRefused).toEqual({ 'stale-tip': 1 });
    expect(errors[0]).toMatchObject({ tipMoved: true, onChain: false, tipHeight: TIP_HEIGHT + 1 });
  });

  it('the block is on the chain after all: already-on-chain', async () => {
    const kit = setup({ networkDifficulty: 1n });
    const { sessionId, job } = await kit.login();
    const { nonce } = mine(job, 4);
    const blob = kit.templates
      .current()!
      .template.buildSubmitBlob(hexToBytes(job.job_id), Buffer.from(nonce, 'hex').readUInt32LE(0));
    const id = bytesToHex(blockId(parseBlock(blob)));
    kit.daemon.submitBehaviour = 'reject';
    kit.daemon.tip = { height: 12, hash: 'dd'.repeat(32) };
    kit.daemon.mainChain.set(10, id);
    await kit.submitMined(sessionId, job, 4);
    await vi.waitFor(() =>
      expect(kit.ledger.refusals).toEqual([{ blockHash: id, reason: 'already-on-chain' }]),
    );
    // The block is the pool's: its template's other blocks are stale now, not submitted.
    await kit.submitMined(sessionId, job, 5);
    expect(kit.daemon.submitted).toHaveLength(1);
    expect(kit.ledger.shares).toEqual([expect.objectContaining({ stale: true })]);
  });

  it('a daemon that cannot be asked: unknown, and the miner was answered without waiting for it', async () => {
    const kit = setup({ networkDifficulty: 1n });
    kit.daemon.submitBehaviour = 'reject';
    let answer: (() => void) | undefined;
    kit.daemon.getLastBlockHeader = () =>
      new Promise((_, reject) => {
        answer = () => reject(new RpcError('RPC_TIMEOUT', 'timed out', {}));
      });
    const { sessionId, job } = await kit.login();
    await kit.submitMined(sessionId, job, 5);
    expect(kit.ledger.candidates).toHaveLength(1);
    expect(kit.ledger.refusals).toEqual([]);
    expect(answer).toBeDefined();
    answer!();
    await vi.waitFor(() => expect(kit.ledger.refusals[0]?.reason).toBe('unknown'));
    expect(kit.backend.metrics.blocksRefused).toEqual({ unknown: 1 });
  });
});

describe('PoolBackend stale shares and template changes', () => {
  it('shares in flight when a new block arrives are credited as stale, never submitted; later ones expire', async () => {
    const { login, templates, verifier, daemon, ledger, backend, clock } = setup({ networkDifficulty: 1n });
    const { sessionId, job, sink } = await login();
    const a = mine(job, 1);
    const b = mine(job, 2);
    verifier.pause();
    const inFlight = [
      backend.submit(sessionId, { jobId: job.job_id, ...a }),
      backend.submit(sessionId, { jobId: job.job_id, ...b }),
    ];
    await flushImmediates();
    templates.emit(activeTemplate(2, 11, 1n), 'new-block');
    clock.advance(500);
    verifier.resume();
    await Promise.all(inFlight);

    expect(ledger.shares).toHaveLength(2);
    expect(ledger.shares.every((s) => s.stale && s.height === 10)).toBe(true);
    expect(daemon.submitted).toEqual([]);
    expect(ledger.candidates).toEqual([]);
    expect(backend.metrics.sharesRejected).toEqual({});
    expect(backend.metrics.sharesStale).toBe(2);
    // The miner got a job on the new block.
    expect(sink.jobs.at(-1)).toMatchObject({ height: 11 });

    // Within the grace window a share on the old job is still credited, still not submitted.
    clock.advance(1500);
    await backend.submit(sessionId, { jobId: job.job_id, ...mine(job, 3) });
    expect(ledger.shares).toHaveLength(3);
    expect(daemon.submitted).toEqual([]);

    // After it: Block expired.
    clock.advance(1);
    await expect(backend.submit(sessionId, { jobId: job.job_id, ...mine(job, 4) })).rejects.toMatchObject({
      code: 'BLOCK_EXPIRED',
    });

    // The new job is current: its blocks are submitted.
    const fresh = sink.jobs.at(-1)!;
    await backend.submit(sessionId, { jobId: fresh.job_id, ...mine(fresh, 1) });
    expect(daemon.submitted).toHaveLength(1);
    expect(ledger.candidates[0]).toMatchObject({ height: 11 });
  });

  it('a refresh at the same height keeps older jobs current (they can still be blocks)', async () => {
    const { login, templates, daemon, backend, clock } = setup({ networkDifficulty: 1n });
    const { sessionId, job, sink } = await login();
    const base = templates.current()!;
    templates.emit({ ...base, id: 2 }, 'refresh');
    expect(sink.jobs).toHaveLength(1);
    expect(sink.jobs[0]!.job_id).not.toBe(job.job_id);
    clock.advance(10_000);
    await backend.submit(sessionId, { jobId: job.job_id, ...mine(job, 1) });
    expect(daemon.submitted).toHaveLength(1);
  });

  it('a template repeated or older than the current one pushes nothing', async () => {
    const { login, templates } = setup();
    const { sink } = await login();
    const base = templates.current()!;
    templates.emit(base, 'refresh');
    templates.emit({ ...base, id: 0 }, 'new-block');
    expect(sink.jobs).toEqual([]);
  });

  it('every job of every session has a distinct blob and job id; pushes are never identical to the last job', async () => {
    const { login, templates, backend } = setup();
    const sessions = await Promise.all([login(), login(), login({ login: ADDRESS_2 })]);
    const jobs: StratumJob[] = sessions.map((s) => s.job);
    for (const s of sessions) for (let i = 0; i < 3; i++) jobs.push(backend.getJob(s.sessionId));
    templates.emit(activeTemplate(2, 11, HUGE), 'new-block');
    templates.emit({ ...templates.current()!, id: 3 }, 'refresh');
    await flushImmediates();
    for (const s of sessions) {
      expect(s.sink.jobs).toHaveLength(2);
      jobs.push(...s.sink.jobs);
      const lastBeforePush = s.job;
      expect(s.sink.jobs[0]).not.toEqual(lastBeforePush);
      expect(s.sink.jobs[1]!.job_id).not.toBe(s.sink.jobs[0]!.job_id);
    }
    expect(jobs).toHaveLength(18);
    expect(new Set(jobs.map((j) => j.blob)).size).toBe(18);
    expect(new Set(jobs.map((j) => j.job_id)).size).toBe(18);
    // The 32 bytes at 43 commit to the extra nonce: they differ between all jobs of one template too.
    expect(new Set(jobs.map((j) => j.blob.slice(86, 150))).size).toBe(18);
  });

  it('broadcasts in chunks so a large pool does not block the event loop', async () => {
    // Chunks by count only: a loaded machine must not cut a turn short at the default 15 ms slice.
    const { login, templates, backend } = setup({
      options: { broadcastChunkSize: 10, broadcastSliceMs: 60_000 },
    });
    const sessions = [];
    for (let i = 0; i < 35; i++) sessions.push(await login());
    templates.emit(activeTemplate(2, 11, HUGE), 'new-block');
    expect(sessions.filter((s) => s.sink.jobs.length === 1)).toHaveLength(10);
    await flushImmediates(10);
    expect(sessions.every((s) => s.sink.jobs.length === 1)).toBe(true);
    // A session that disconnected meanwhile gets nothing.
    backend.disconnect(sessions[0]!.sessionId);
    templates.emit(activeTemplate(3, 12, HUGE), 'new-block');
    await flushImmediates(10);
    expect(sessions[0]!.sink.jobs).toHaveLength(1);
    expect(sessions[1]!.sink.jobs).toHaveLength(2);
  });

  it('a miner who leaves during a broadcast gets nothing; one who logs in meanwhile gets no second job', async () => {
    const { login, templates, backend } = setup({
      options: { broadcastChunkSize: 5, broadcastSliceMs: 60_000 },
    });
    const sessions = [];
    for (let i = 0; i < 12; i++) sessions.push(await login());
    templates.emit(activeTemplate(2, 11, HUGE), 'new-block');
    expect(sessions.filter((s) => s.sink.jobs.length === 1)).toHaveLength(5);
    backend.disconnect(sessions[9]!.sessionId);
    const late = await login();
    expect(late.job.height).toBe(11);
    await flushImmediates(10);
    expect(sessions[9]!.sink.jobs).toHaveLength(0);
    expect(sessions.filter((s) => s.sink.jobs.length === 1)).toHaveLength(11);
    expect(late.sink.jobs).toHaveLength(0);
  });

  it('a newer template abandons a broadcast in progress; everyone ends on the newest', async () => {
    const { login, templates } = setup({ options: { broadcastChunkSize: 5, broadcastSliceMs: 60_000 } });
    const sessions = [];
    for (let i = 0; i < 12; i++) sessions.push(await login());
    templates.emit(activeTemplate(2, 11, HUGE), 'new-block');
    templates.emit(activeTemplate(3, 12, HUGE), 'new-block');
    await flushImmediates(10);
    expect(sessions.every((s) => s.sink.jobs.at(-1)?.height === 12)).toBe(true);
    expect(sessions.reduce((n, s) => n + s.sink.jobs.length, 0)).toBe(5 + 12);
  });
});

describe('PoolBackend vardiff', () => {
  const vardiff = {
    targetShareTimeSec: 10,
    retargetIntervalSec: 1,
    variancePercent: 30,
    minDifficulty: 1,
    maxDifficulty: 1_000_000,
    maxChangeFactor: 4,
  };

  it('a retarget sends a new job; shares on the previous job are credited at its old difficulty', async () => {
    const { login, submitMined, ledger, clock } = setup({ options: { vardiff } });
    const { sessionId, job, sink } = await login({ login: ADDRESS }, { startDifficulty: 1 });
    clock.advance(1000);
    // One share in 1 s against a 10 s target is well within chance; two are not.
    await submitMined(sessionId, job, 1);
    expect(sink.jobs).toHaveLength(0);
    await submitMined(sessionId, job, 2);
    expect(sink.jobs).toHaveLength(1);
    const pushed = sink.jobs[0]!;
    expect(pushed.job_id).not.toBe(job.job_id);
    expect(pushed.blob).not.toBe(job.blob);
    expect(difficultyFromTargetHex(pushed.target)).toBe(4n);
    await submitMined(sessionId, job, 3);
    expect(ledger.shares.map((s) => s.difficulty)).toEqual([1, 1, 1]);
  });

  it('the tick lowers the difficulty of a quiet miner with a new job', async () => {
    const { login, backend, clock } = setup({ options: { vardiff } });
    const { sink } = await login({ login: ADDRESS }, { startDifficulty: 1000 });
    backend.tick();
    expect(sink.jobs).toHaveLength(0);
    // Nothing for 40 s against a 10 s target: a quarter of the difficulty (the largest step).
    clock.advance(40_000);
    backend.tick();
    expect(sink.jobs).toHaveLength(1);
    expect(difficultyFromTargetHex(sink.jobs[0]!.target)).toBe(250n);
  });

  it('capped at the network: network-difficulty jobs meanwhile, the miner’s own difficulty once the network rises', async () => {
    const { login, backend, templates, clock } = setup({ networkDifficulty: 2n, options: { vardiff } });
    const { sessionId, job, sink } = await login({ login: ADDRESS }, { startDifficulty: 2 });
    // A share every 2.5 s at difficulty 2: 0.8 H/s, whose own difficulty for 10 s shares is 8.
    let n = 0;
    for (let share = 0; share < 20; share++) {
      clock.advance(2500);
      const current = sink.jobs.at(-1) ?? job;
      n = firstNonce(current, (hash) => checkHash(hash, 2n), n + 1);
      await backend.submit(sessionId, { jobId: current.job_id, ...mine(current, n) });
      backend.tick();
    }
    expect([job, ...sink.jobs].map((j) => difficultyFromTargetHex(j.target))).toEqual(
      [job, ...sink.jobs].map(() => 2n),
    );
    // The network rises far above the miner: its next job is at its own speed, not maxDifficulty.
    templates.emit(activeTemplate(2, 11, HUGE), 'new-block');
    const next = difficultyFromTargetHex(sink.jobs.at(-1)!.target);
    expect(sink.jobs.at(-1)).toMatchObject({ height: 11 });
    expect(next).toBeGreaterThanOrEqual(6n);
    expect(next).toBeLessThanOrEqual(11n);
  });

  it('a fixed difficulty (+DIFF or fixed port) never changes', async () => {
    const { login, submitMined, backend, clock } = setup({ options: { vardiff } });
    const plus = await login({ login: `${ADDRESS}+1` });
    const port = await login({ login: ADDRESS }, { fixedDifficulty: true, startDifficulty: 1 });
    clock.advance(5000);
    await submitMined(plus.sessionId, plus.job, 1);
    await submitMined(port.sessionId, port.job, 1);
    backend.tick();
    expect(plus.sink.jobs).toEqual([]);
    expect(port.sink.jobs).toEqual([]);
  });

  it('the tick refreshes proxy sessions periodically', async () => {
    const { login, backend, clock } = setup({ options: { proxyJobRefreshMs: 30_000 } });
    const proxy = await login({ agent: 'xmrig-proxy/6.26.0' });
    const miner = await login();
    clock.advance(30_000);
    backend.tick();
    expect(proxy.sink.jobs).toHaveLength(1);
    expect(miner.sink.jobs).toHaveLength(0);
  });
});

describe('PoolBackend when the wall clock steps', () => {
  const HOUR = 3_600_000;

  it('a step back does not keep an @alias past its cache TTL', async () => {
    const elapsed = new TestClock();
    const { login, clock, daemon, ledger, submitMined } = setup({ elapsedClock: elapsed });
    await login({ login: '@alice' });
    expect(daemon.aliasLookups).toBe(1);
    // The alias moves to another wallet; the clock is stepped back a day as the TTL passes.
    daemon.aliases.set('alice', ADDRESS);
    clock.advance(-24 * HOUR);
    elapsed.advance(DEFAULT_POOL_BACKEND_OPTIONS.aliasCacheTtlMs + 1);
    const session = await login({ login: '@alice.rig' });
    expect(daemon.aliasLookups).toBe(2);
    await submitMined(session.sessionId, session.job, 1);
    expect(ledger.shares.at(-1)).toMatchObject({ address: ADDRESS });
  });

  it('a step forward does not lower a quiet miner’s difficulty', async () => {
    const elapsed = new TestClock();
    const { login, backend, clock } = setup({ elapsedClock: elapsed });
    const { sink } = await login({ login: ADDRESS }, { startDifficulty: 1000 });
    // An NTP correction (or a VM resumed) moves the wall clock an hour; a second passed.
    clock.advance(HOUR);
    elapsed.advance(1000);
    backend.tick();
    expect(sink.jobs).toEqual([]);
  });

  it('a step forward does not expire the previous tip’s shares still in their grace', async () => {
    const elapsed = new TestClock();
    const { login, backend, templates, ledger, clock } = setup({ elapsedClock: elapsed });
    const { sessionId, job } = await login();
    templates.emit(activeTemplate(2, 11, HUGE), 'new-block');
    clock.advance(HOUR);
    elapsed.advance(500);
    await expect(backend.submit(sessionId, { jobId: job.job_id, ...mine(job, 1) })).resolves.toBeUndefined();
    expect(ledger.shares.at(-1)).toMatchObject({ stale: true, height: 10 });
  });

  it('a step back does not keep the previous tip’s shares credited past their grace', async () => {
    const elapsed = new TestClock();
    const { login, backend, templates, clock } = setup({ elapsedClock: elapsed });
    const { sessionId, job } = await login();
    templates.emit(activeTemplate(2, 11, HUGE), 'new-block');
    clock.advance(-HOUR);
    elapsed.advance(DEFAULT_POOL_BACKEND_OPTIONS.staleGraceMs + 1);
    await expect(backend.submit(sessionId, { jobId: job.job_id, ...mine(job, 1) })).rejects.toMatchObject({
      code: 'BLOCK_EXPIRED',
    });
  });
});

describe('PoolBackend bans', () => {
  const ban = { ...DEFAULT_BAN_POLICY_OPTIONS, minShares: 3, maxInvalidRatio: 0.5 };

  it('bans an IP that sends bad shares, closes its other sessions and refuses it', async () => {
    const { backend, bans, login } = setup({ options: { ban } });
    const a = await login();
    const b = await login();
    const other = await login({}, { remoteAddress: '10.0.0.2' });
    const bad = { jobId: a.job.job_id, nonce: 'xx', result: '0'.repeat(64) };
    await expect(backend.submit(a.sessionId, bad)).rejects.toMatchObject({ code: 'MALFORMED_NONCE' });
    await expect(backend.submit(a.sessionId, bad)).rejects.toMatchObject({ code: 'MALFORMED_NONCE' });
    await expect(backend.submit(a.sessionId, bad)).rejects.toMatchObject({ code: 'BANNED' });
    expect(backend.isBanned('10.0.0.1')).toBe(true);
    expect(b.sink.closedWith).toBe('banned');
    expect(a.sink.closedWith).toBeUndefined();
    expect(other.sink.closedWith).toBeUndefined();
    await expect(backend.submit(a.sessionId, bad)).rejects.toMatchObject({ code: 'BANNED' });
    await expect(login()).rejects.toMatchObject({ code: 'BANNED' });
    expect(await bans.list()).toEqual([expect.objectContaining({ ip: '10.0.0.1', remainingSeconds: 60 })]);
    expect(backend.metrics.bansIssued).toBe(1);
    expect(await bans.unban('10.0.0.1')).toBe(true);
    await expect(login()).resolves.toBeDefined();
  });

  it('good shares keep an IP clear of a ban', async () => {
    const { backend, login, submitMined } = setup({ options: { ban } });
    const { sessionId, job } = await login();
    for (let n = 0; n < 3; n++) await submitMined(sessionId, job, n);
    await backend.submit(sessionId, { jobId: job.job_id, nonce: 'xx', result: '' }).catch(() => undefined);
    expect(backend.isBanned('10.0.0.1')).toBe(false);
  });

  it('hands the bans it decides to the registry, and obeys one decided elsewhere without counting it', async () => {
    const { backend, bans, login } = setup({ options: { ban } });
    const issued = bans.banned;
    const a = await login();
    const bad = { jobId: a.job.job_id, nonce: 'xx', result: '0'.repeat(64) };
    for (let i = 0; i < 3; i++) await backend.submit(a.sessionId, bad).catch(() => undefined);
    expect(issued).toEqual([expect.objectContaining({ ip: '10.0.0.1', manual: false, offences: 1 })]);

    // Another process banned 10.0.0.2: its sessions here close and it is refused, not counted.
    const b = await login({}, { remoteAddress: '10.0.0.2' });
    bans.local.adopt({ ...issued[0]!, ip: '10.0.0.2' });
    expect(b.sink.closedWith).toBe('banned');
    await expect(login({}, { remoteAddress: '10.0.0.2' })).rejects.toMatchObject({ code: 'BANNED' });
    expect(backend.metrics.bansIssued).toBe(1);
    expect(issued).toHaveLength(1);
  });

  it('a ban of an IPv6 peer closes the sessions of every address in its /64, and no other', async () => {
    const { bans, clock, login } = setup();
    const a = await login({}, { remoteAddress: '2001:db8:1:2::1' });
    const b = await login({}, { remoteAddress: '2001:db8:1:2::2' });
    const c = await login({}, { remoteAddress: '2001:db8:1:3::1' });
    expect((await bans.ban(manualBan('2001:db8:1:2::99', 600, 'operator', clock.now()))).ip).toBe(
      '2001:db8:1:2::/64',
    );
    expect(a.sink.closedWith).toBe('banned');
    expect(b.sink.closedWith).toBe('banned');
    expect(c.sink.closedWith).toBeUndefined();
    await expect(login({}, { remoteAddress: '2001:db8:1:2::3' })).rejects.toMatchObject({ code: 'BANNED' });
  });

  it('a manual ban closes every session of the IP', async () => {
    const { backend, bans, clock, login } = setup();
    const a = await login();
    await bans.ban(manualBan('10.0.0.1', 600, 'operator', clock.now()));
    expect(a.sink.closedWith).toBe('banned');
    await expect(
      backend.submit(a.sessionId, { jobId: a.job.job_id, nonce: '00000000', result: '0'.repeat(64) }),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('PoolBackend session lifecycle', () => {
  it('keepalive and getJob work until disconnect, then UNAUTHENTICATED', async () => {
    const { backend, login } = setup();
    const { sessionId } = await login();
    expect(() => backend.keepalive(sessionId)).not.toThrow();
    expect(backend.getJob(sessionId).algo).toBe('cn/upx2');
    expect(backend.metrics.sessions).toBe(1);
    backend.disconnect(sessionId);
    expect(backend.metrics.sessions).toBe(0);
    expect(() => backend.keepalive(sessionId)).toThrow(expect.objectContaining({ code: 'UNAUTHENTICATED' }));
  });

  it('close() stops listening to templates', async () => {
    const { backend, login, templates } = setup();
    const { sink } = await login();
    backend.close();
    templates.emit(activeTemplate(2, 11, HUGE), 'new-block');
    await flushImmediates();
    expect(sink.jobs).toEqual([]);
  });
});
