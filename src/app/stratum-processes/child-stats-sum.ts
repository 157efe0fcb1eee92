import type { PoolBackendMetrics } from '../../pool/pool-backend.js';
import type { ShareVerifierPoolMetrics } from '../../pow/verifier-pool.js';
import type { StratumMetricsSnapshot } from '../../servers/stratum/stratum-metrics.js';
import type { ShareLedgerMetrics } from '../../store/shares/redis-share-ledger.js';
import type { ChildStats } from './child-messages.js';

/**
 * The stratum children's numbers as one pool's: counters and gauges add up, per-key counters add
 * per key, the last broadcast is the slowest child's, the average hash time is weighted by hashes.
 */
export function sumChildStats(all: readonly ChildStats[]): ChildStats {
  return {
    stratum: sumStratum(all.map((s) => s.stratum)),
    backend: sumBackend(all.map((s) => s.backend)),
    verifier: sumVerifier(all.map((s) => s.verifier)),
    ledger: sumLedger(all.map((s) => s.ledger)),
  };
}

/**
 * The counters of a child that exited, with its gauges (connections and sessions now, queues,
 * workers) at zero: kept in the sum so that the pool's totals never go back when a child dies,
 * which Prometheus would read as a counter reset and count again.
 */
export function countersOnly(stats: ChildStats): ChildStats {
  const byPort: Record<string, { current: number; total: number }> = {};
  for (const [port, counts] of Object.entries(stats.stratum.byPort))
    byPort[port] = { current: 0, total: counts.total };
  return {
    stratum: {
      ...stats.stratum,
      connections: { ...stats.stratum.connections, current: 0 },
      byPort,
      sessions: 0,
    },
    backend: { ...stats.backend, sessions: 0, lastBroadcastMs: 0 },
    verifier: { ...stats.verifier, queueDepth: 0, inFlight: 0, workers: 0, implementation: null },
    ledger: { ...stats.ledger, queuedShares: 0, inFlightShares: 0 },
  };
}

type Counts = Readonly<Partial<Record<string, number>>>;

function sumCounts(all: readonly Counts[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const counts of all) {
    for (const [key, value] of Object.entries(counts)) out[key] = (out[key] ?? 0) + (value ?? 0);
  }
  return out;
}

function sumOf<T>(all: readonly T[], pick: (item: T) => number): number {
  let total = 0;
  for (const item of all) total += pick(item);
  return total;
}

function sumStratum(all: readonly StratumMetricsSnapshot[]): StratumMetricsSnapshot {
  const byPort: Record<string, { current: number; total: number }> = {};
  for (const snapshot of all) {
    for (const [port, counts] of Object.entries(snapshot.byPort)) {
      const entry = byPort[port] ?? { current: 0, total: 0 };
      entry.current += counts.current;
      entry.total += counts.total;
      byPort[port] = entry;
    }
  }
  return {
    connections: {
      current: sumOf(all, (s) => s.connections.current),
      total: sumOf(all, (s) => s.connections.total),
      refused: sumCounts(all.map((s) => s.connections.refused)),
      floodDropped: sumOf(all, (s) => s.connections.floodDropped ?? 0),
    },
    byPort,
    sessions: sumOf(all, (s) => s.sessions),
    protocolErrors: {
      total: sumOf(all, (s) => s.protocolErrors.total),
      byKind: sumCounts(all.map((s) => s.protocolErrors.byKind)),
      byIp: sumCounts(all.map((s) => s.protocolErrors.byIp)),
    },
    errorReplies: sumCounts(all.map((s) => s.errorReplies)),
    closes: sumCounts(all.map((s) => s.closes)),
  };
}

function sumBackend(all: readonly PoolBackendMetrics[]): PoolBackendMetrics {
  return {
    sessions: sumOf(all, (m) => m.sessions),
    logins: sumOf(all, (m) => m.logins),
    loginsRefused: sumCounts(all.map((m) => m.loginsRefused)),
    sharesAccepted: sumOf(all, (m) => m.sharesAccepted),
    sharesStale: sumOf(all, (m) => m.sharesStale),
    sharesRejected: sumCounts(all.map((m) => m.sharesRejected)),
    blocksFound: sumOf(all, (m) => m.blocksFound),
    blocksAccepted: sumOf(all, (m) => m.blocksAccepted),
    blocksRejected: sumOf(all, (m) => m.blocksRejected),
    blocksRefused: sumCounts(all.map((m) => m.blocksRefused)),
    blockSubmitErrors: sumOf(all, (m) => m.blockSubmitErrors),
    jobsIssued: sumOf(all, (m) => m.jobsIssued),
    jobsIssuedShared: sumOf(all, (m) => m.jobsIssuedShared),
    bansIssued: sumOf(all, (m) => m.bansIssued),
    lastBroadcastMs: all.reduce((max, m) => Math.max(max, m.lastBroadcastMs), 0),
  };
}

function sumVerifier(all: readonly ShareVerifierPoolMetrics[]): ShareVerifierPoolMetrics {
  const hashesTotal = sumOf(all, (m) => m.hashesTotal);
  const histogram = new Map<number, number>();
  for (const metrics of all) {
    for (const bucket of metrics.hashTimeMsHistogram) {
      histogram.set(bucket.le, (histogram.get(bucket.le) ?? 0) + bucket.count);
    }
  }
  return {
    queueDepth: sumOf(all, (m) => m.queueDepth),
    inFlight: sumOf(all, (m) => m.inFlight),
    workers: sumOf(all, (m) => m.workers),
    implementation: all.find((m) => m.implementation !== null)?.implementation ?? null,
    hashesTotal,
    hashTimeMsAvg: hashesTotal === 0 ? 0 : sumOf(all, (m) => m.hashTimeMsAvg * m.hashesTotal) / hashesTotal,
    hashTimeMsHistogram: [...histogram].sort(([a], [b]) => a - b).map(([le, count]) => ({ le, count })),
    batchesSent: sumOf(all, (m) => m.batchesSent),
    workerRestarts: sumOf(all, (m) => m.workerRestarts),
    jobsRetried: sumOf(all, (m) => m.jobsRetried),
  };
}

function sumLedger(all: readonly ShareLedgerMetrics[]): ShareLedgerMetrics {
  return {
    queuedShares: sumOf(all, (m) => m.queuedShares),
    inFlightShares: sumOf(all, (m) => m.inFlightShares),
    batchesWritten: sumOf(all, (m) => m.batchesWritten),
    batchesFailed: sumOf(all, (m) => m.batchesFailed),
  };
}
