/**
 * The user-space work of one job push per miner, without sockets: for N logged-in sessions on one
 * template, what the pool does for each on a new template (`PoolBackend`'s push: `JobManager.issue`
 * builds the job, the connection's sink encodes the `job` line and the batched writer copies its
 * bytes into its buffer) up to the socket write:
 *
 *   npm run bench:job-push -- [--miners N] [--rounds R] [--pure]
 *   (or, built: node build/bench/benchmarks/stratum/job-push.js [...])
 *
 * Two captured v9 templates (test/fixtures/fuegod-rpc): one with only the coinbase, one with a
 * transaction (a merkle branch of one hash). The keccak is the native addon's, as in the pool;
 * `--pure` uses the TypeScript one. Prints CPU µs per miner per push (median of the rounds, after 20
 * warm-up rounds) for the whole push, the job alone, the line alone, and the whole push on blobs
 * shared by 255 sessions (`JobManager.issueShared`, what XMRig 6 miners get); the last line is one JSON
 * object. A fixed N and R make the whole process's CPU time comparable between two trees.
 *
 * For the two whole pushes it also counts V8's scavenges and the bytes they moved to the old
 * generation (what a push leaves for a mark-compact to find), per miner per push over the counted
 * rounds. Run it with the young generation a stratum child has (`stratum.childSemiSpaceMb`, 8 by
 * default), so that those figures are the pool's:
 * `node --max-semi-space-size=8 build/bench/benchmarks/stratum/job-push.js --miners 20000`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GCProfiler } from 'node:v8';
import { parseBlockTemplate } from '../../src/fuego/block-template.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import type { FastHash } from '../../src/fuego/keccak.js';
import { findPackageRoot } from '../../src/package-root.js';
import { ExtraNonceAllocator } from '../../src/pool/extra-nonce.js';
import { JobManager } from '../../src/pool/job-manager.js';
import { MinerSession } from '../../src/pool/miner-session.js';
import type { MinerSessionSink, StratumJob } from '../../src/pool/stratum-backend.js';
import type { ActiveTemplate, TemplateSource } from '../../src/pool/template-source.js';
import { nativeFastHash } from '../../src/pow/native-fast-hash.js';
import { encodeJobLine } from '../../src/servers/stratum/protocol.js';

const ADDRESS =
  'fire9iU5y8WC4oNx4DwwgW53acCbeUzKzFuBdnEoS1RfLb354KEXYxoeeXFikBv7AyRr78d8LW5fF2pzUMU57tsu6EXbo5kkUX';
/** Captured getblocktemplate exchanges: request (reserve_size) and response (blob, offset). */
const FIXTURES = [
  { name: 'v9, coinbase only', file: '50-getblocktemplate-v9-for-solve' },
  { name: 'v9, one transaction', file: '71-getblocktemplate-with-tx-in-pool' },
];
/**
 * Rounds not counted first: by then every session holds as many jobs as it keeps (4) and as many
 * retired job ids (16), as a pool's sessions do after 20 pushes (the steady state).
 */
const WARM_UP_ROUNDS = 20;
/** Session difficulties, in turn: a pool's sessions sit at a handful of vardiff levels, mixed in login order. */
const DIFFICULTIES = [5_000, 10_000, 20_000, 40_000, 80_000, 160_000];

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index < 0 ? fallback : Number(process.argv[index + 1]);
}

function loadTemplate(file: string, fastHash: FastHash | undefined): ActiveTemplate {
  const dir = join(findPackageRoot(), 'test', 'fixtures', 'fuegod-rpc');
  const requestText = readFileSync(join(dir, `${file}.request.txt`), 'utf8');
  const request = JSON.parse(requestText.slice(requestText.indexOf('\n\n') + 2)) as {
    params: { reserve_size: number };
  };
  const { result } = JSON.parse(readFileSync(join(dir, `${file}.response.body`), 'utf8')) as {
    result: { blocktemplate_blob: string; reserved_offset: number; height: number; difficulty: number };
  };
  const template = parseBlockTemplate({
    blob: hexToBytes(result.blocktemplate_blob),
    parentStyle: 'pool',
    reservedOffset: result.reserved_offset,
    reserveSize: request.params.reserve_size,
    height: result.height,
    difficulty: BigInt(result.difficulty),
    ...(fastHash ? { fastHash } : {}),
  });
  const prevHash = bytesToHex(template.prevId);
  return { id: 1, template, height: result.height, networkDifficulty: 10n ** 12n, prevHash, receivedAtMs: 0 };
}

/** Bytes of a batch of the pool's batched writer (socket-write-batch.ts). */
const BATCH_BYTES = 512 * 1024;

/**
 * What the stratum connection's sink and the batched writer do with a pushed job: encode its line
 * and put its bytes into a batch buffer, as `SocketWriteBatch.enqueue` does (the send is not here).
 */
class EncodingSink implements MinerSessionSink {
  readonly #batch = Buffer.allocUnsafe(BATCH_BYTES);
  #at = 0;
  bytes = 0;
  sendJob(job: StratumJob): void {
    const line = encodeJobLine(job);
    if (this.#at > BATCH_BYTES / 2) this.#at = 0;
    const written =
      typeof line === 'string'
        ? this.#batch.write(line, this.#at, 'utf8')
        : line.copyTo(this.#batch, this.#at);
    this.#at += written;
    this.bytes += written;
  }
  close(): void {}
}

function sessions(count: number, sink: MinerSessionSink): MinerSession[] {
  const connection = {
    remoteAddress: '127.0.0.1',
    port: 3333,
    tls: false,
    startDifficulty: 5_000,
    fixedDifficulty: true,
    solo: false,
  };
  return Array.from(
    { length: count },
    (_, i) =>
      new MinerSession({
        id: `s${i}`,
        connection,
        peer: connection.remoteAddress,
        sink,
        address: ADDRESS,
        worker: 'rig',
        solo: false,
        agent: 'XMRig/6.16.0',
        vardiff: undefined,
        fixedDifficulty: DIFFICULTIES[i % DIFFICULTIES.length]!,
        jobsPerSession: 4,
      }),
  );
}

/** A push's cost per miner: CPU time, and what it left to V8's young-generation collector. */
interface PushFigures {
  readonly us: number;
  /** Scavenges per push, per 10,000 miners. */
  readonly scavengesPer10k: number;
  /** Bytes the scavenges moved to the old generation, per miner per push. */
  readonly promotedBytesPerMiner: number;
}

/**
 * CPU µs per miner of `work` over all sessions (the process's CPU time, so that time spent waiting
 * for a core on a loaded host does not count), median of `rounds` after WARM_UP_ROUNDS; and over
 * the counted rounds, the scavenges and the old generation's growth across them.
 */
function measure(
  rounds: number,
  miners: readonly MinerSession[],
  work: (s: MinerSession) => void,
): PushFigures {
  const samples: number[] = [];
  const profiler = new GCProfiler();
  for (let round = 0; round < WARM_UP_ROUNDS + rounds; round++) {
    if (round === WARM_UP_ROUNDS) profiler.start();
    const start = process.cpuUsage();
    for (const miner of miners) work(miner);
    const used = process.cpuUsage(start);
    const us = (used.user + used.system) / miners.length;
    if (round >= WARM_UP_ROUNDS) samples.push(us);
  }
  const scavenges = (profiler.stop()?.statistics ?? []).filter((gc) => gc.gcType === 'Scavenge');
  const oldSpaceUsed = (stats: (typeof scavenges)[number]['beforeGC']) =>
    stats.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0;
  const promoted = scavenges.reduce(
    (sum, gc) => sum + oldSpaceUsed(gc.afterGC) - oldSpaceUsed(gc.beforeGC),
    0,
  );
  samples.sort((a, b) => a - b);
  return {
    us: Number(samples[Math.floor(samples.length / 2)]!.toFixed(3)),
    scavengesPer10k: Number(((scavenges.length / rounds) * (10_000 / miners.length)).toFixed(2)),
    promotedBytesPerMiner: Math.round(promoted / rounds / miners.length),
  };
}

/** CPU µs per miner of `work`, as measure() gives it. */
function measureUs(rounds: number, miners: readonly MinerSession[], work: (s: MinerSession) => void): number {
  return measure(rounds, miners, work).us;
}

function main(): void {
  const miners = argument('--miners', 10_000);
  const rounds = argument('--rounds', 5);
  const fastHash = process.argv.includes('--pure') ? undefined : nativeFastHash();
  const results: Record<string, Record<string, number>> = {};
  for (const fixture of FIXTURES) {
    const active = loadTemplate(fixture.file, fastHash);
    const templates: TemplateSource = { current: () => active, onTemplate: () => () => {} };
    const jobs = new JobManager(
      { staleGraceMs: 2_000 },
      { templates, extraNonces: new ExtraNonceAllocator({ nodeId: 1 }), clock: () => performance.now() },
    );
    const sink = new EncodingSink();
    const all = sessions(miners, sink);
    const push = measure(rounds, all, (s) => s.sink.sendJob(jobs.issue(s)!));
    const shared = measure(rounds, all, (s) => s.sink.sendJob(jobs.issueShared(s)!));
    const jobUs = measureUs(rounds, all, (s) => jobs.issue(s));
    const lastJobs = all.map((s) => jobs.issue(s)!);
    let index = 0;
    const lineUs = measureUs(rounds, all, () => sink.sendJob(lastJobs[index++ % lastJobs.length]!));
    results[fixture.name] = {
      pushUs: push.us,
      jobUs,
      lineUs,
      sharedPushUs: shared.us,
      pushScavengesPer10k: push.scavengesPer10k,
      pushPromotedBytesPerMiner: push.promotedBytesPerMiner,
      sharedPushScavengesPer10k: shared.scavengesPer10k,
      sharedPushPromotedBytesPerMiner: shared.promotedBytesPerMiner,
    };
    process.stdout.write(
      `${fixture.name}: ${push.us} µs per miner per push (job ${jobUs}, line ${lineUs}), ${shared.us} on blobs shared by 255; ${miners} miners, median of ${rounds}\n` +
        `  scavenges per push per 10,000 miners / bytes moved to the old generation per miner per push: ${push.scavengesPer10k} / ${push.promotedBytesPerMiner} B, shared ${shared.scavengesPer10k} / ${shared.promotedBytesPerMiner} B\n`,
    );
  }
  process.stdout.write(
    `${JSON.stringify({ miners, rounds, nativeKeccak: fastHash !== undefined, results })}\n`,
  );
}

main();
