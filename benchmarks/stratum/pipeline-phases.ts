import { bytesToHex } from '../../src/fuego/hex.js';
import type { ShareVerifierPool } from '../../src/pow/verifier-pool.js';
import type { LoggedInMiner } from './simulated-miners.js';
import type { StratumClient, StratumReply } from './stratum-client.js';

/**
 * The phases of the share pipeline benchmark: hashing shares ahead of time (and measuring the raw
 * verifier rate while doing it), sending them with a bounded or an unbounded number in flight.
 */

/** Hashes kept queued in the raw-capacity verifier pool (enough to keep every worker busy). */
const HASH_WINDOW = 512;
/** Where every CryptoNote miner writes its nonce in the hashing blob (shared/spec/stratum.md §6.1). */
const NONCE_OFFSET = 39;
const PACING_TICK_MS = 10;

/** One submit, pre-computed: its line is built once, with its request id, before any timing. */
export interface PreparedSubmit {
  readonly id: number;
  readonly line: string;
}

/** Counters of one phase, updated as replies arrive. */
export interface PhaseResult {
  sent: number;
  ok: number;
  /** Replies the pool sent (OK or error); excludes requests cut off by a closed connection. */
  answered: number;
  readonly errors: Record<string, number>;
  readonly latenciesMs: number[];
  elapsedMs: number;
}

export function newPhase(): PhaseResult {
  return { sent: 0, ok: 0, answered: 0, errors: {}, latenciesMs: [], elapsedMs: 0 };
}

export function record(phase: PhaseResult, reply: StratumReply, latencyMs: number): void {
  phase.latenciesMs.push(latencyMs);
  if (reply.error === null) {
    phase.ok++;
    phase.answered++;
    return;
  }
  // Our own client's "connection closed" is no answer from the pool.
  if (reply.error.code !== -1 || reply.error.message !== 'connection closed') phase.answered++;
  phase.errors[reply.error.message] = (phase.errors[reply.error.message] ?? 0) + 1;
}

/** Blob of `job` with `nonce` little-endian at bytes 39..42, as a miner would hash it. */
function blobWithNonce(jobBlob: Uint8Array, nonce: number): Uint8Array {
  const blob = jobBlob.slice();
  new DataView(blob.buffer, blob.byteOffset, blob.byteLength).setUint32(NONCE_OFFSET, nonce, true);
  return blob;
}

/**
 * Hashes nonces 0, 1, 2... for every miner's job, round-robin, in a ShareVerifierPool of `workers`
 * threads for `durationMs` (or until `maxHashes` are issued, if sooner), keeping `HASH_WINDOW`
 * hashes queued. Returns each miner's (nonce, result) pairs and the pool's rate.
 */
export async function hashShares(
  verifier: ShareVerifierPool,
  blobs: readonly Uint8Array[],
  durationMs: number,
  maxHashes = Number.POSITIVE_INFINITY,
): Promise<{ perMiner: Array<Array<{ nonce: string; result: string }>>; hashes: number; hps: number }> {
  const perMiner = blobs.map(() => [] as Array<{ nonce: string; result: string }>);
  let issued = 0;
  let done = 0;
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const pump = (): void => {
      while (issued - done < HASH_WINDOW && issued < maxHashes && performance.now() - started < durationMs) {
        const index = issued++;
        const miner = index % blobs.length;
        const input = blobWithNonce(blobs[miner]!, Math.floor(index / blobs.length));
        verifier.verify(input).then((hash) => {
          const nonce = bytesToHex(input.subarray(NONCE_OFFSET, NONCE_OFFSET + 4));
          perMiner[miner]!.push({ nonce, result: bytesToHex(hash) });
          done++;
          pump();
        }, reject);
      }
      if (done === issued) resolve();
    };
    pump();
  });
  const elapsedMs = performance.now() - started;
  return { perMiner, hashes: done, hps: (done * 1000) / elapsedMs };
}

/** Re-hashes the same blobs for `durationMs`, results discarded: a raw-capacity sample. */
export async function rawSample(
  verifier: ShareVerifierPool,
  blobs: readonly Uint8Array[],
  durationMs: number,
): Promise<{ hashes: number; hps: number }> {
  const { hashes, hps } = await hashShares(verifier, blobs, durationMs);
  return { hashes, hps };
}

/** A submit line with its request id taken now, so nothing is built while the clock runs. */
export function prepare(
  client: StratumClient,
  sessionId: string,
  jobId: string,
  nonce: string,
  result: string,
): PreparedSubmit {
  const id = client.takeId();
  const params = `{"id":"${sessionId}","job_id":"${jobId}","nonce":"${nonce}","result":"${result}","algo":"cn/upx2"}`;
  return { id, line: `{"id":${id},"jsonrpc":"2.0","method":"submit","params":${params}}\n` };
}

/** Sends `submits` on one connection with at most `maxInFlight` unanswered, as fast as replies come. */
export async function sendBounded(
  client: StratumClient,
  submits: readonly PreparedSubmit[],
  maxInFlight: number,
  phase: PhaseResult,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < submits.length) {
      const submit = submits[next++]!;
      phase.sent++;
      const sentAt = performance.now();
      const reply = await client.sendRaw(submit.id, submit.line);
      record(phase, reply, performance.now() - sentAt);
    }
  };
  await Promise.all(Array.from({ length: maxInFlight }, lane));
}

/**
 * Offers `count` submits at `ratePerSec`, round-robin over the miners, with no bound on what is in
 * flight; resolves when every one is answered (or `drainTimeoutMs` after the last was sent).
 */
export async function sendPaced(
  miners: readonly LoggedInMiner[],
  queues: PreparedSubmit[][],
  count: number,
  ratePerSec: number,
  phase: PhaseResult,
  drainTimeoutMs: number,
): Promise<{ offerMs: number; drainMs: number; maxInFlight: number; finished: boolean }> {
  const replies: Array<Promise<void>> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let cursor = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const due = Math.min(count, Math.floor(((performance.now() - started) / 1000) * ratePerSec));
      while (phase.sent < due) {
        // Round-robin over miners that still have submits.
        let miner = cursor % miners.length;
        for (let tries = 0; queues[miner]!.length === 0 && tries < miners.length; tries++)
          miner = (miner + 1) % miners.length;
        cursor = miner + 1;
        const submit = queues[miner]!.shift();
        if (!submit) break;
        phase.sent++;
        inFlight++;
        const sentAt = performance.now();
        replies.push(
          miners[miner]!.client.sendRaw(submit.id, submit.line).then((reply) => {
            inFlight--;
            record(phase, reply, performance.now() - sentAt);
          }),
        );
      }
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (phase.sent >= count) resolve();
      else setTimeout(tick, PACING_TICK_MS);
    };
    tick();
  });
  const offerMs = performance.now() - started;
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    Promise.all(replies).then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), drainTimeoutMs);
    }),
  ]);
  clearTimeout(timer);
  return { offerMs, drainMs: performance.now() - started - offerMs, maxInFlight, finished };
}
