import { describe, expect, it } from 'vitest';
import type { ChildStats } from '../../../src/app/stratum-processes/child-messages.js';
import { countersOnly, sumChildStats } from '../../../src/app/stratum-processes/child-stats-sum.js';

function stats(n: number, overrides: { hashes: number; avgMs: number; broadcastMs: number }): ChildStats {
  return {
    stratum: {
      connections: { current: n, total: 10 * n, refused: { 'per-ip-limit': n }, floodDropped: n },
      byPort: { '3333': { current: n, total: 10 * n } },
      sessions: n,
      protocolErrors: { total: n, byKind: { 'bad-json': n }, byIp: { [`10.0.0.${n}`]: 1 } },
      errorReplies: { LOW_DIFFICULTY: n },
      closes: { peer: n },
    },
    backend: {
      sessions: n,
      logins: 2 * n,
      loginsRefused: { BANNED: n },
      sharesAccepted: 100 * n,
      sharesStale: n,
      sharesRejected: { DUPLICATE_SHARE: n },
      blocksFound: n,
      blocksAccepted: n,
      blocksRejected: n,
      blocksRefused: { 'pow-disagreement': n },
      blockSubmitErrors: 0,
      jobsIssued: 5 * n,
      jobsIssuedShared: 4 * n,
      bansIssued: n,
      lastBroadcastMs: overrides.broadcastMs,
    },
    verifier: {
      queueDepth: n,
      inFlight: n,
      workers: 1,
      implementation: 'native',
      hashesTotal: overrides.hashes,
      hashTimeMsAvg: overrides.avgMs,
      hashTimeMsHistogram: [
        { le: 1, count: n },
        { le: Number.POSITIVE_INFINITY, count: overrides.hashes - n },
      ],
      batchesSent: n,
      workerRestarts: 0,
      jobsRetried: 0,
    },
    ledger: { queuedShares: n, inFlightShares: n, batchesWritten: 3 * n, batchesFailed: 0 },
  };
}

describe('the stratum children as one pool', () => {
  it('adds counters and gauges, per key where they are keyed', () => {
    const sum = sumChildStats([
      stats(1, { hashes: 100, avgMs: 2, broadcastMs: 40 }),
      stats(2, { hashes: 300, avgMs: 4, broadcastMs: 25 }),
    ]);
    expect(sum.stratum.connections).toEqual({
      current: 3,
      total: 30,
      refused: { 'per-ip-limit': 3 },
      floodDropped: 3,
    });
    expect(sum.stratum.byPort).toEqual({ '3333': { current: 3, total: 30 } });
    expect(sum.stratum.protocolErrors.byIp).toEqual({ '10.0.0.1': 1, '10.0.0.2': 1 });
    expect(sum.backend).toMatchObject({
      sessions: 3,
      sharesAccepted: 300,
      sharesRejected: { DUPLICATE_SHARE: 3 },
      blocksRefused: { 'pow-disagreement': 3 },
      jobsIssued: 15,
      jobsIssuedShared: 12,
      bansIssued: 3,
      // The push is done when the slowest child is done.
      lastBroadcastMs: 40,
    });
    expect(sum.verifier).toMatchObject({ workers: 2, hashesTotal: 400, hashTimeMsAvg: 3.5 });
    expect(sum.verifier.hashTimeMsHistogram).toEqual([
      { le: 1, count: 3 },
      { le: Number.POSITIVE_INFINITY, count: 397 },
    ]);
    expect(sum.ledger).toEqual({ queuedShares: 3, inFlightShares: 3, batchesWritten: 9, batchesFailed: 0 });
  });

  it('is all zeros while no child has reported', () => {
    const sum = sumChildStats([]);
    expect(sum.backend.sessions).toBe(0);
    expect(sum.verifier).toMatchObject({ workers: 0, implementation: null, hashTimeMsAvg: 0 });
  });

  it("keeps an exited child's counters and drops its gauges", () => {
    const gone = countersOnly(stats(2, { hashes: 300, avgMs: 4, broadcastMs: 25 }));
    const sum = sumChildStats([gone, stats(1, { hashes: 100, avgMs: 2, broadcastMs: 40 })]);
    expect(sum.stratum.connections).toMatchObject({ current: 1, total: 30 });
    expect(sum.stratum.byPort).toEqual({ '3333': { current: 1, total: 30 } });
    expect(sum.backend).toMatchObject({
      sessions: 1,
      sharesAccepted: 300,
      bansIssued: 3,
      lastBroadcastMs: 40,
    });
    expect(sum.verifier).toMatchObject({
      workers: 1,
      queueDepth: 1,
      hashesTotal: 400,
      implementation: 'native',
    });
    expect(sum.ledger).toMatchObject({ queuedShares: 1, batchesWritten: 9 });
  });
});
