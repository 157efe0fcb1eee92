import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IssuedJob, SharedJobTerms, TrackedTemplateRef } from '../../src/pool/miner-session.js';
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

describe('MinerSession jobs on a shared blob', () => {
  function terms(prefix: string, template = tracked(TIP_A), issuedAtMs = 0): SharedJobTerms {
    return {
      jobIdPrefix: prefix,
      template,
      extraNonce: new Uint8Array(8),
      hashingBlob: new Uint8Array(76),
      nonceOffset: 39,
      difficulty: 1000,
      issuedAtMs,
    };
  }

  it('finds its job by the blob’s id prefix and its own top byte, and keeps what a share marked on it', () => {
    const session = minerSession('s1', 1000);
    const blob = terms('00aa11bb22cc33dd');
    session.addSharedJob(blob, 0x2f);
    expect(session.lastJobOnSharedBlob).toBe(true);
    expect(session.lastJobTerms).toBe(blob);
    expect(session.findJob('00aa11bb22cc33dd30')).toBeUndefined(); // another session's byte
    expect(session.findJob('00aa11bb22cc33dd2F')).toBeUndefined(); // ids are lowercase, as issued
    expect(session.findJob('00aa11bb22cc33dd')).toBeUndefined();
    const job = session.findJob('00aa11bb22cc33dd2f') as IssuedJob;
    expect(job).toMatchObject({ jobId: '00aa11bb22cc33dd2f', nonceTopByte: 0x2f, difficulty: 1000 });
    job.submittedNonces = new Set(['0000002f']);
    expect((session.findJob('00aa11bb22cc33dd2f') as IssuedJob).submittedNonces?.has('0000002f')).toBe(true);
    expect(session.movedOnFromTipOf(job)).toBeUndefined();
  });

  it('answers as a list of every job it was given would, with shared and own blobs mixed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.record({ shared: fc.boolean(), onTipB: fc.boolean(), asked: fc.boolean() }), {
          maxLength: 40,
        }),
        (jobsPerSession, given) => {
          const session = minerSession('s1', 1000, undefined, jobsPerSession);
          const ids: string[] = [];
          given.forEach(({ shared, onTipB, asked }, i) => {
            const template = tracked(onTipB ? TIP_B : TIP_A);
            const prefix = `p${i.toString(16).padStart(2, '0')}`;
            if (shared) session.addSharedJob(terms(prefix, template, i), (i % 255) + 1);
            else session.addJob(job(`j${i}`, template, i));
            ids.push(shared ? `${prefix}${((i % 255) + 1).toString(16).padStart(2, '0')}` : `j${i}`);
            // A share on the newest job makes an IssuedJob of it; it is found and retired as the others.
            if (asked) expect(session.findJob(ids[i]!)).toMatchObject({ jobId: ids[i], issuedAtMs: i });
          });
          const kept = ids.slice(-jobsPerSession);
          const retired = ids.slice(-jobsPerSession - 16, -jobsPerSession);
          expect(session.lastJob?.jobId).toBe(ids.at(-1));
          expect(session.lastJobOnSharedBlob).toBe(given.at(-1)?.shared ?? false);
          ids.forEach((id, i) => {
            const found = session.findJob(id);
            if (kept.includes(id)) expect(found).toMatchObject({ jobId: id, issuedAtMs: i });
            else expect(found).toBe(retired.includes(id) ? 'retired' : undefined);
          });
          const onTip = (id: string) => given[ids.indexOf(id)]!.onTipB;
          for (const id of kept) {
            const later = kept.slice(kept.indexOf(id) + 1).find((k) => onTip(k) !== onTip(id));
            const found = session.findJob(id) as IssuedJob;
            expect(session.movedOnFromTipOf(found)).toBe(
              later === undefined ? undefined : ids.indexOf(later),
            );
          }
        },
      ),
    );
  });
});
