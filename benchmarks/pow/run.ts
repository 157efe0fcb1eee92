/**
 * cn/upx2 benchmark: single-thread H/s of each implementation, ShareVerifierPool throughput with
 * 1..N workers, and XMRig 6.16.0's single-thread cn/upx2 rate measured in the same run.
 * `npm run bench:pow`. Prints a table, then, as its last line, one JSON object.
 * On a shared machine the numbers move with the neighbours' load; compare ratios, not absolutes.
 * nativeHps is the per-thread rate of the way the verifier workers hash under load (two shares per
 * call, main loops interleaved); nativeSingleHps is one hash per call. Each is the better of two
 * samples, one taken just after XMRig's run, and so are the TypeScript and pool rates.
 */
import { availableParallelism } from 'node:os';
import { createLogger } from '../../src/log/logger.js';
import { loadHasher, type PowImplementationChoice } from '../../src/pow/load-hasher.js';
import { ensureXmrig, measureXmrigHashrate } from '../../src/tools/xmrig.js';
import { measurePool, measureSingleThread, measureSingleThreadPairs } from './measure.js';

const SINGLE_THREAD_MS = { native: 5_000, 'native-portable': 5_000, typescript: 5_000 } as const;
const POOL_MS = 10_000;
const XMRIG_MS = 25_000;

type Row = [string, string, string];

function formatHps(hps: number | null): string {
  return hps === null ? 'n/a' : hps.toFixed(1);
}

function ratio(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : Number((a / b).toFixed(4));
}

function round(hps: number | null): number | null {
  return hps === null ? null : Number(hps.toFixed(1));
}

async function main(): Promise<void> {
  const logger = createLogger({ level: 'warn' });
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const rows: Row[] = [];
  const notes: string[] = [];

  const single: Record<'native' | 'native-portable' | 'typescript', number | null> = {
    native: null,
    'native-portable': null,
    typescript: null,
  };
  let nativePaired: number | null = null;
  const measureNativePairs = (label: string): void => {
    const result = measureSingleThreadPairs(loadHasher('native', logger), SINGLE_THREAD_MS.native);
    if (result === null) return;
    rows.push([label, formatHps(result.hps), `${result.hashes} hashes, two per call`]);
    nativePaired = Math.max(nativePaired ?? 0, result.hps);
  };
  for (const implementation of ['native', 'native-portable', 'typescript'] as const) {
    try {
      const hasher = loadHasher(implementation, logger);
      const result = measureSingleThread(hasher, SINGLE_THREAD_MS[implementation]);
      single[implementation] = result.hps;
      rows.push([`single thread, ${implementation}`, formatHps(result.hps), `${result.hashes} hashes`]);
    } catch (error) {
      notes.push(`${implementation}: not measured (${(error as Error).message})`);
      rows.push([`single thread, ${implementation}`, 'n/a', 'unavailable']);
    }
    say(`measured ${implementation}`);
    if (implementation === 'native' && single.native !== null)
      measureNativePairs('single thread, native, paired');
  }

  const workers = availableParallelism();
  const poolImplementation: PowImplementationChoice = single.native !== null ? 'native' : 'auto';
  const poolHps: Record<string, number | null> = {};
  const measurePools = async (sample: string): Promise<void> => {
    for (let n = 1; n <= workers; n++) {
      try {
        const result = await measurePool(n, poolImplementation, POOL_MS, logger);
        poolHps[String(n)] = round(Math.max(poolHps[String(n)] ?? 0, result.hps));
        rows.push([
          `pool, ${n} worker${n > 1 ? 's' : ''} (${poolImplementation})${sample}`,
          formatHps(result.hps),
          `${result.hashes} hashes, ${result.batchesSent} batches, ${result.hashTimeMsAvg.toFixed(3)} ms/hash`,
        ]);
      } catch (error) {
        poolHps[String(n)] ??= null;
        notes.push(`pool with ${n} workers: not measured (${(error as Error).message})`);
      }
      say(`measured pool with ${n} worker(s)${sample}`);
    }
  };
  await measurePools('');

  let xmrigHps: number | null = null;
  try {
    const xmrigPath = await ensureXmrig();
    const result = await measureXmrigHashrate({
      xmrigPath,
      durationMs: XMRIG_MS,
      threads: 1,
      printTimeSeconds: 5,
    });
    xmrigHps = result.hashrateHps;
    if (xmrigHps === null)
      notes.push(`XMRig printed no numeric rate; its speed lines: ${result.speedLines.join(' | ')}`);
    rows.push([
      'XMRig 6.16.0 cn/upx2, 1 thread (10 s avg)',
      formatHps(xmrigHps),
      result.speedLines.at(-1) ?? '',
    ]);
  } catch (error) {
    notes.push(`XMRig not measured: ${(error as Error).message}`);
    rows.push(['XMRig 6.16.0 cn/upx2, 1 thread', 'n/a', 'unavailable']);
  }
  say('measured XMRig');

  // The machine is shared: measure native and the pools again after XMRig and keep the better of
  // the two samples, so the ratios are not skewed by neighbours' load drifting over time.
  await measurePools(' (2nd sample)');
  if (single.native !== null) {
    const again = measureSingleThread(loadHasher('native', logger), SINGLE_THREAD_MS.native);
    rows.push(['single thread, native (2nd sample)', formatHps(again.hps), `${again.hashes} hashes`]);
    single.native = Math.max(single.native, again.hps);
    measureNativePairs('single thread, native, paired (2nd sample)');
  }
  if (single.typescript !== null) {
    const again = measureSingleThread(loadHasher('typescript', logger), SINGLE_THREAD_MS.typescript);
    rows.push(['single thread, typescript (2nd sample)', formatHps(again.hps), `${again.hashes} hashes`]);
    single.typescript = Math.max(single.typescript, again.hps);
  }

  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i as 0 | 1 | 2].length), 10));
  const line = (r: Row) => `${r[0].padEnd(widths[0] ?? 0)}  ${r[1].padStart(widths[1] ?? 0)}  ${r[2]}`;
  say('');
  say(line(['what', 'H/s', 'detail']));
  say(line(['-'.repeat(widths[0] ?? 0), '-'.repeat(widths[1] ?? 0), '------']));
  for (const row of rows) say(line(row));
  for (const note of notes) say(`note: ${note}`);

  const pool1 = poolHps['1'] ?? null;
  const poolN = poolHps[String(workers)] ?? null;
  const summary = {
    nativeHps: round(nativePaired ?? single.native),
    nativeSingleHps: round(single.native),
    nativePortableHps: round(single['native-portable']),
    tsHps: round(single.typescript),
    poolHps,
    workers,
    xmrigHps: round(xmrigHps),
    ratios: {
      nativeVsXmrig: ratio(nativePaired ?? single.native, xmrigHps),
      nativeSingleVsXmrig: ratio(single.native, xmrigHps),
      tsVsXmrig: ratio(single.typescript, xmrigHps),
      poolEfficiency: pool1 === null || poolN === null ? null : ratio(poolN, workers * pool1),
      poolVsThreads:
        poolN === null || (nativePaired ?? single.native) === null
          ? null
          : ratio(poolN, workers * (nativePaired ?? single.native ?? 0)),
    },
  };
  say(JSON.stringify(summary));
}

await main();
