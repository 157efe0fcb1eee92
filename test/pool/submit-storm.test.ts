import { afterEach, describe, expect, it } from 'vitest';
import { PoolBackend } from '../../src/pool/pool-backend.js';
import type { LoginRequest, StratumJob } from '../../src/pool/stratum-backend.js';
import { ShareVerifierPool } from '../../src/pow/verifier-pool.js';
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
  mine,
  silentLogger,
  TestClock,
} from './pool-fakes.js';

// Real verifier workers (dist/pow/verifier.worker.js, native addon): the attack is on their queue.
const skipNative = process.env['FUEGO_POW_SKIP_NATIVE'] === '1';

const ATTACKER_IP = '198.51.100.66';
const HONEST_IP = '203.0.113.9';
const CONNECTIONS = 20;
/** What the stratum server lets a connection have pending. */
const PENDING_PER_CONNECTION = 32;

const verifiers: ShareVerifierPool[] = [];
afterEach(async () => {
  await Promise.all(verifiers.splice(0).map((v) => v.close()));
});

async function setup() {
  const clock = new TestClock();
  const verifier = new ShareVerifierPool(
    { workers: 1, implementation: 'native', maxQueuedJobs: 4096, maxBatchSize: 8 },
    { logger: silentLogger },
  );
  verifiers.push(verifier);
  await verifier.start();
  const bans = new FakeBanRegistry({ clock: clock.now });
  const backend = new PoolBackend(
    {
      ...DEFAULT_POOL_BACKEND_OPTIONS,
      minLoginDifficulty: 1,
      extraNonceStart: 0,
      ban: { ...DEFAULT_BAN_POLICY_OPTIONS, enabled: true },
    },
    {
      templates: new FakeTemplateSource(activeTemplate(1, 10, 10n ** 12n)),
      verifier,
      ledger: new FakeLedger(),
      daemon: new FakeDaemon(),
      logger: silentLogger,
      clock: clock.now,
      elapsedClock: clock.now,
      bans,
    },
  );
  const login = async (address: string, remoteAddress: string) => {
    // Fixed difficulty 1: any real hash is a valid share.
    const request: LoginRequest = {
      login: `${address}+1`,
      pass: 'x',
      agent: 'XMRig/6.16.0',
      algo: ['cn/upx2'],
    };
    return backend.login(request, connection({ remoteAddress }), new FakeSink());
  };
  return { verifier, backend, bans, login };
}

type Outcome = { ok: true } | { ok: false; code: string };
const settle = (promise: Promise<void>): Promise<Outcome> =>
  promise.then(
    () => ({ ok: true }),
    (error: unknown) => ({ ok: false, code: (error as { code: string }).code }),
  );

describe('submit storms', () => {
  it.skipIf(skipNative)(
    "a peer's burst of bogus results neither delays another peer's share behind it nor is hashed to the end once banned",
    async () => {
      const { verifier, backend, bans, login } = await setup();
      const attackers = await Promise.all(
        Array.from({ length: CONNECTIONS }, () => login(ADDRESS, ATTACKER_IP)),
      );
      const honest = await login(ADDRESS_2, HONEST_IP);

      // Every connection's pending submits at once: right format, wrong result.
      const storm: Promise<Outcome>[] = [];
      let nonce = 0;
      for (const attacker of attackers) {
        for (let i = 0; i < PENDING_PER_CONNECTION; i++) {
          const request = {
            jobId: attacker.job.job_id,
            nonce: (nonce++).toString(16).padStart(8, '0'),
            result: 'ab'.repeat(32),
          };
          storm.push(settle(backend.submit(attacker.sessionId, request)));
        }
      }
      const job: StratumJob = honest.job;
      let hashedBeforeHonest = -1;
      const honestShare = settle(
        backend.submit(honest.sessionId, { jobId: job.job_id, ...mine(job, 7) }).finally(() => {
          hashedBeforeHonest = verifier.metrics().hashesTotal;
        }),
      );

      expect(await honestShare).toEqual({ ok: true });
      const outcomes = await Promise.all(storm);
      const hashed = verifier.metrics().hashesTotal;

      // The honest share waited for the jobs already at the worker and its turn, not the storm.
      expect(hashedBeforeHonest).toBeLessThanOrEqual(2 * 8 + 2);
      // Banned after the policy's minimum of evidence; the rest of the burst was never hashed.
      expect(bans.banned.map((b) => b.ip)).toEqual([ATTACKER_IP]);
      // The worker holds up to two batches of 8 when the ban comes; a third may be on its way back.
      expect(hashed).toBeLessThanOrEqual(DEFAULT_BAN_POLICY_OPTIONS.minShares + 3 * 8 + 1);
      const codes = outcomes.map((o) => (o.ok ? 'OK' : o.code));
      // Each hashed job of the attacker was refused as such, but the one that earned the ban
      // (answered BANNED); the honest share was hashed too.
      expect(codes.filter((c) => c === 'INVALID_RESULT')).toHaveLength(hashed - 2);
      expect(codes.filter((c) => c === 'BANNED').length).toBeGreaterThan(
        CONNECTIONS * PENDING_PER_CONNECTION - hashed,
      );
      expect(codes.every((c) => c === 'INVALID_RESULT' || c === 'BANNED')).toBe(true);
      expect(verifier.metrics().queueDepth).toBe(0);
    },
  );
});
