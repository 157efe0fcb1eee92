import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IssuedJob, TrackedTemplateRef } from '../../src/pool/miner-session.js';
import { activeTemplate, minerSession } from './pool-fakes.js';

const TIP_A = activeTemplate(1, 10, 100n);
const TIP_B = { ...activeTemplate(2, 11, 100n), prevHash: 'b'.repeat(64) };

function tracked(active: TrackedTemplateRef['active']): TrackedTemplateRef {
  return { active, supersededAtMs: undefined, solved: false };
}

function job(jobId: string, template = tracked(TIP_A), issuedAtMs = 0): IssuedJob {
  return {
    jobId,
    template,
    extraNonce: new Uint8Array(8),
    hashingBlob: new Uint8Array(76),
    nonceOffset: 39,
    nonceTopByte: undefined,
    difficulty: 1000,
    issuedAtMs,
    submittedNonces: undefined,
  };
}

describe('MinerSession jobs', () => {
  it('keeps the last jobsPerSession jobs and knows the dropped ones as retired', () => {
    const session = minerSession('s1', 1000); // keeps 4
    const jobs = Array.from({ length: 6 }, (_, i) => job(`job${i}`));
    for (const j of jobs) session.addJob(j);
    expect(session.lastJob).toBe(jobs[5]);
    expect(session.lastTemplateId).toBe(TIP_A.id);
    session.addJob(job('on-b', tracked(TIP_B)));
    expect(session.lastTemplateId).toBe(TIP_B.id);
    for (const kept of jobs.slice(3)) expect(session.findJob(kept.jobId)).toBe(kept);
    for (const dropped of jobs.slice(0, 3)) expect(session.findJob(dropped.jobId)).toBe('retired');
    expect(session.findJob('never-issued')).toBeUndefined();
  });

  it('remembers the last 16 retired job ids, no more', () => {
    const session = minerSession('s1', 1000);
    for (let i = 0; i < 4 + 20; i++) session.addJob(job(`job${i}`));
    // job0..job19 retired; the 16 newest of them (job4..job19) are still recognised.
    for (let i = 0; i < 4; i++) expect(session.findJob(`job${i}`)).toBeUndefined();
    for (let i = 4; i < 20; i++) expect(session.findJob(`job${i}`)).toBe('retired');
    for (let i = 20; i < 24; i++) expect(session.findJob(`job${i}`)?.constructor).toBe(Object);
  });

  it('says when it was first sent a job on a later tip, in issue order', () => {
    const session = minerSession('s1', 1000);
    const old = job('a1', tracked(TIP_A), 10);
    session.addJob(old);
    expect(session.movedOnFromTipOf(old)).toBeUndefined();
    session.addJob(job('a2', tracked(TIP_A), 20));
    expect(session.movedOnFromTipOf(old)).toBeUndefined();
    session.addJob(job('b1', tracked(TIP_B), 30));
    session.addJob(job('b2', tracked(TIP_B), 40));
    expect(session.movedOnFromTipOf(old)).toBe(30);
    const b1 = session.findJob('b1') as IssuedJob;
    expect(session.movedOnFromTipOf(b1)).toBeUndefined();
    // Once `old` is dropped, newer jobs still answer for their own tip.
    session.addJob(job('a3', tracked(TIP_A), 50));
    expect(session.findJob('a1')).toBe('retired');
    expect(session.movedOnFromTipOf(b1)).toBe(50);
  });

  it('answers as a list of every job it was given would, whatever jobsPerSession and however many jobs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.boolean(), { maxLength: 40 }),
        (jobsPerSession, onTipB) => {
          const session = minerSession('s1', 1000, undefined, jobsPerSession);
          const given = onTipB.map((b, i) => job(`j${i}`, tracked(b ? TIP_B : TIP_A), i));
          for (const j of given) session.addJob(j);
          const kept = given.slice(-jobsPerSession);
          const retired = given.slice(-jobsPerSession - 16, -jobsPerSession);
          expect(session.lastJob).toBe(given.at(-1));
          given.forEach((j, i) => {
            const expected = kept.includes(j) ? j : retired.includes(j) ? 'retired' : undefined;
            expect(session.findJob(`j${i}`)).toBe(expected);
          });
          for (const j of kept) {
            const later = kept
              .slice(kept.indexOf(j) + 1)
              .find((k) => k.template.active !== j.template.active);
            expect(session.movedOnFromTipOf(j)).toBe(later?.issuedAtMs);
          }
        },
      ),
    );
  });
});
