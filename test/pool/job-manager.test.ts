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

describe('JobManager jobs on a shared blob', () => {
  it('keeps one terms object for the sessions given the blob within a millisecond, and each session its own job id and top byte', () => {
    const { clock, jobs, session } = setup(1n << 60n);
    const miners = [1, 2, 3].map((n) => minerSession(`shared-${n}`, 5_000));
    const sent = miners.slice(0, 2).map((m) => jobs.issueShared(m)!);
    clock.advance(0.5);
    sent.push(jobs.issueShared(miners[2]!)!);
    // One object behind all three: a push leaves no job object per miner.
    const terms = miners[0]!.lastJobTerms;
    for (const miner of miners) expect(miner.lastJobTerms).toBe(terms);
    expect(terms).toMatchObject({ difficulty: 5_000, issuedAtMs: 1_000_000 });
    expect(miners.every((m) => m.lastJobOnSharedBlob)).toBe(true);

    // What a share finds: the session's own job, with its top byte, the same object each time.
    miners.forEach((miner, i) => {
      const job = miner.findJob(sent[i]!.job_id);
      expect(job).toMatchObject({ jobId: sent[i]!.job_id, nonceTopByte: i + 1, difficulty: 5_000 });
      expect(miner.findJob(sent[i]!.job_id)).toBe(job);
      expect(miner.lastJob).toBe(job);
      // Another session's id on the same blob is not this one's.
      expect(miner.findJob(sent[(i + 1) % 3]!.job_id)).toBeUndefined();
    });

    // A millisecond on, another difficulty, or a blob of its own: other terms.
    clock.advance(0.5);
    const later = minerSession('shared-4', 5_000);
    jobs.issueShared(later);
    expect(later.lastJobTerms).not.toBe(terms);
    expect(later.lastJobTerms?.issuedAtMs).toBe(1_000_001);
    const harder = minerSession('shared-5', 10_000);
    jobs.issueShared(harder);
    expect(harder.lastJobTerms).toMatchObject({ difficulty: 10_000 });
    const own = session(5_000, 'vardiff');
    jobs.issue(own);
    expect(own.lastJobOnSharedBlob).toBe(false);
    expect(own.lastJobTerms).toBe(own.lastJob);
  });
});
