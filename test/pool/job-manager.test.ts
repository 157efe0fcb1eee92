import { describe, expect, it } from 'vitest';
import { difficultyFromTargetHex } from '../../src/fuego/difficulty.js';
import { ExtraNonceAllocator } from '../../src/pool/extra-nonce.js';
import { JobManager } from '../../src/pool/job-manager.js';
import type { MinerSession } from '../../src/pool/miner-session.js';
import { Vardiff } from '../../src/pool/vardiff.js';
import { DEFAULT_POOL_BACKEND_OPTIONS } from '../helpers/config-defaults.js';
import { activeTemplate, FakeTemplateSource, minerSession, TestClock } from './pool-fakes.js';

function setup(networkDifficulty: bigint) {
  const clock = new TestClock();
  const templates = new FakeTemplateSource(activeTemplate(1, 10, networkDifficulty));
  const jobs = new JobManager(
    { staleGraceMs: 2000 },
    { templates, extraNonces: new ExtraNonceAllocator({ nodeId: 0 }), clock: clock.now },
  );
  /** A session at `difficulty`: fixed (`+DIFF`, a fixed port) or under vardiff. */
  function session(difficulty: number, kind: 'fixed' | 'vardiff'): MinerSession {
    const vardiff =
      kind === 'vardiff'
        ? new Vardiff(DEFAULT_POOL_BACKEND_OPTIONS.vardiff, difficulty, clock.nowMs)
        : undefined;
    return minerSession(`${kind}-${difficulty}`, difficulty, vardiff);
  }
  /** The difficulty of the wire target and of the kept job (what shares are checked and credited at). */
  function issued(miner: MinerSession): { target: bigint; credited: number | undefined } {
    const job = jobs.issue(miner);
    if (job === undefined) throw new Error('no job');
    return { target: difficultyFromTargetHex(job.target), credited: miner.lastJob?.difficulty };
  }
  return { clock, templates, jobs, session, issued };
}

describe('JobManager job difficulty', () => {
  it('never asks more than the network: a +5000 or vardiff miner on a 1,000 network gets 1,000', () => {
    const { session, issued } = setup(1_000n);
    expect(issued(session(5_000, 'fixed'))).toEqual({ target: 1_000n, credited: 1_000 });
    expect(issued(session(5_000, 'vardiff'))).toEqual({ target: 1_000n, credited: 1_000 });
  });

  it('the testnet case: vardiff at 120,001 on a 100,000 network is never asked more than 100,000', () => {
    const { session, issued } = setup(100_000n);
    // A 4-byte target says 100,001 or 99,999, never 100,000: the job takes the one that loses no block.
    expect(issued(session(120_001, 'vardiff'))).toEqual({ target: 99_999n, credited: 99_999 });
    expect(issued(session(100_000, 'fixed'))).toEqual({ target: 99_999n, credited: 99_999 });
  });

  it('keeps the miner’s difficulty below the network’s, and follows the network of each template', () => {
    const { templates, session, issued } = setup(1_000n);
    const miner = session(800, 'fixed');
    expect(issued(miner)).toEqual({ target: 800n, credited: 800 });
    templates.emit(activeTemplate(2, 10, 500n), 'refresh');
    expect(issued(miner)).toEqual({ target: 500n, credited: 500 });
    templates.emit(activeTemplate(3, 10, 1_000_000n), 'refresh');
    expect(issued(miner)).toEqual({ target: 800n, credited: 800 });
  });

  it('keeps the miner’s difficulty when the network difficulty is beyond a safe integer', () => {
    const { session, issued } = setup(1n << 60n);
    expect(issued(session(5_000, 'fixed'))).toEqual({ target: 5_000n, credited: 5_000 });
  });
});

describe('JobManager after the pool’s own block is accepted', () => {
  it('turns jobs on the solved tip stale at once (refreshes and late templates too); the grace starts with the next tip', () => {
    const { clock, templates, jobs, session } = setup(1_000n);
    const miner = session(1_000, 'fixed');
    jobs.issue(miner);
    const solvedJob = miner.lastJob!;
    templates.emit({ ...templates.current()!, id: 2 }, 'refresh');
    jobs.issue(miner);
    const refreshJob = miner.lastJob!;
    expect(jobs.freshness(solvedJob, clock.nowMs)).toBe('current');

    jobs.markSolved(solvedJob.template);
    expect(jobs.freshness(solvedJob, clock.nowMs)).toBe('stale');
    expect(jobs.freshness(refreshJob, clock.nowMs)).toBe('stale');
    // A template fetched before the block landed and delivered after it: its jobs are stale too.
    templates.emit({ ...templates.current()!, id: 3 }, 'refresh');
    jobs.issue(miner);
    const lateJob = miner.lastJob!;
    expect(lateJob.template.active.id).toBe(3);
    expect(jobs.freshness(lateJob, clock.nowMs)).toBe('stale');
    // However long the next template takes, its miners have no better job meanwhile.
    clock.advance(10_000);
    expect(jobs.freshness(solvedJob, clock.nowMs)).toBe('stale');

    templates.emit(activeTemplate(4, 11, 1_000n), 'new-block');
    jobs.issue(miner);
    expect(jobs.freshness(miner.lastJob!, clock.nowMs)).toBe('current');
    clock.advance(2_000);
    expect(jobs.freshness(solvedJob, clock.nowMs)).toBe('stale');
    clock.advance(1);
    expect(jobs.freshness(solvedJob, clock.nowMs)).toBe('expired');
    expect(jobs.freshness(lateJob, clock.nowMs)).toBe('expired');
  });

  it('leaves jobs on another tip current', () => {
    const { clock, templates, jobs, session } = setup(1_000n);
    const miner = session(1_000, 'fixed');
    jobs.issue(miner);
    const solvedJob = miner.lastJob!;
    templates.emit(activeTemplate(2, 11, 1_000n), 'new-block');
    jobs.issue(miner);
    // A late answer for the old tip's block: the current tip is not touched.
    jobs.markSolved(solvedJob.template);
    expect(jobs.freshness(miner.lastJob!, clock.nowMs)).toBe('current');
  });
});
