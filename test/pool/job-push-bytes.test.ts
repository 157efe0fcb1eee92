import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BlockTemplate, parseBlockTemplate } from '../../src/fuego/block-template.js';
import { targetHexForDifficulty } from '../../src/fuego/difficulty.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import type { ParentStyle } from '../../src/fuego/job-work.js';
import { ExtraNonceAllocator } from '../../src/pool/extra-nonce.js';
import { JobManager, unusableTemplateReason } from '../../src/pool/job-manager.js';
import type { MinerSession } from '../../src/pool/miner-session.js';
import type { ActiveTemplate } from '../../src/pool/template-source.js';
import { nativeFastHash } from '../../src/pow/native-fast-hash.js';
import { encodeJobLine, encodeJobNotification } from '../../src/servers/stratum/protocol.js';
import { type LoadedTemplate, loadCapturedTemplates } from '../helpers/captured-templates.js';
import { minerSession } from './pool-fakes.js';

/*
 * The job push builds every miner's blob the fast way (the native addon runs all of a job's hashes
 * in one call over a reused work buffer). Whatever it does, each miner must get exactly the bytes
 * of the straightforward build: the pure keccak, a fresh copy of the coinbase, the merkle root
 * from the branch, the aux hash, the parent coinbase and the PoW input (BlockTemplate.buildJob).
 */

const fastHash = nativeFastHash();
const captured = loadCapturedTemplates();
const STYLES: readonly ParentStyle[] = ['pool', 'daemon-miner'];

function parse(t: LoadedTemplate, parentStyle: ParentStyle, fast: boolean): BlockTemplate {
  return parseBlockTemplate({
    blob: hexToBytes(t.result.blocktemplate_blob),
    parentStyle,
    reservedOffset: t.result.reserved_offset,
    reserveSize: t.reserveSize,
    height: t.result.height,
    ...(fast ? { fastHash: fastHash! } : {}),
  });
}

/** Extra nonces as the pool hands them out (node id, counter) and odd ones: short, full, all 0xff. */
function extraNonces(capacity: number, count: number): Uint8Array[] {
  const out: Uint8Array[] = [new Uint8Array(0), new Uint8Array(capacity).fill(0xff), Uint8Array.of(9)];
  for (let i = 0; i < count; i++) {
    const nonce = new Uint8Array(Math.min(capacity, 8));
    nonce[0] = i >>> 8;
    nonce[1] = (i * 31) & 0xff;
    for (let b = 2; b < nonce.length; b++) nonce[b] = (i * 2654435761) >>> (8 * (b % 4));
    out.push(nonce);
  }
  return out;
}

describe('job blobs built for a push are byte for byte the straightforward build', () => {
  it('the native addon offers the one-call chain (the pool uses it)', () => {
    expect(fastHash?.chain).toBeDefined();
  });

  it.each(captured)('$name: every extra nonce, both parent styles', (t) => {
    for (const style of STYLES) {
      const fast = parse(t, style, true);
      const reference = parse(t, style, false);
      // Interleaved long and short nonces: a short one must not keep bytes of the one before.
      for (const nonce of extraNonces(fast.extraNonceCapacity, 200)) {
        const expected = bytesToHex(reference.buildJob(nonce).hashingBlob);
        expect(bytesToHex(fast.buildHashingBlob(nonce))).toBe(expected);
        expect(bytesToHex(fast.buildJob(nonce).hashingBlob)).toBe(expected);
      }
    }
  });

  it('any extra nonce of any length on the v9 template with a transaction', () => {
    const t = captured.find((x) => x.name.startsWith('71-'))!;
    const fast = parse(t, 'pool', true);
    const reference = parse(t, 'pool', false);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: fast.extraNonceCapacity }), (nonce) => {
        expect(bytesToHex(fast.buildHashingBlob(nonce))).toBe(
          bytesToHex(reference.buildJob(nonce).hashingBlob),
        );
      }),
      { numRuns: 500 },
    );
  });
});

function active(t: LoadedTemplate, fast: boolean): ActiveTemplate {
  const template = parse(t, 'pool', fast);
  const prevHash = bytesToHex(template.prevId);
  return {
    id: 1,
    template,
    height: t.result.height,
    networkDifficulty: 10n ** 15n,
    prevHash,
    receivedAtMs: 0,
  };
}

/**
 * The job line as the protocol spells it, from the pure build and JSON.stringify of each part; on
 * a shared blob, with the session's top nonce byte at 42 and at the end of the job id.
 */
function referenceLine(reference: ActiveTemplate, miner: MinerSession): string {
  const job = miner.lastJob!;
  const bytes = Buffer.from(reference.template.buildJob(job.extraNonce).hashingBlob);
  const top = job.nonceTopByte === undefined ? Buffer.alloc(0) : Buffer.of(job.nonceTopByte);
  if (job.nonceTopByte !== undefined) bytes[42] = job.nonceTopByte;
  const params = {
    blob: bytes.toString('hex'),
    job_id: Buffer.concat([job.extraNonce, top]).toString('hex'),
    target: targetHexForDifficulty(job.difficulty),
    algo: 'cn/upx2',
    height: reference.height,
  };
  return `${JSON.stringify({ jsonrpc: '2.0', method: 'job', params })}\n`;
}

describe('the job line each miner receives is byte for byte the straightforward one', () => {
  const usable = captured.filter((t) => unusableTemplateReason(active(t, false)) === undefined);

  it('covers the usable captured templates (v9, with and without transactions)', () => {
    expect(usable.length).toBeGreaterThanOrEqual(10);
    expect(usable.some((t) => t.name.startsWith('71-'))).toBe(true);
  });

  function jobManager(fast: ActiveTemplate): JobManager {
    return new JobManager(
      { staleGraceMs: 2_000 },
      {
        templates: { current: () => fast, onTemplate: () => () => {} },
        extraNonces: new ExtraNonceAllocator({ nodeId: 0x1f2e, counterStart: 2 ** 40 - 300 }),
        clock: () => 0,
      },
    );
  }

  it.each(usable)('$name: mixed difficulties, over 1,024 distinct ones, every job', (t) => {
    const fast = active(t, true);
    const reference = active(t, false);
    const jobs = jobManager(fast);
    const difficulties = [1, 5_000, 5_000, 123_457, 2 ** 32, 2 ** 40 + 3, 9_007_199_254_740_991];
    const miners = Array.from({ length: 1_500 }, (_, i) =>
      minerSession(`m${i}`, i < 600 ? difficulties[i % difficulties.length]! : 1_000 + i * 17),
    );
    for (const miner of [...miners, ...miners.slice(0, 50)]) {
      const line = encodeJobNotification(jobs.issue(miner)!);
      expect(line).toBe(referenceLine(reference, miner));
    }
  });

  it.each(usable)('$name: shared blobs, each miner with its own top nonce byte', (t) => {
    const fast = active(t, true);
    const reference = active(t, false);
    const jobs = jobManager(fast);
    const miners = Array.from({ length: 600 }, (_, i) => minerSession(`m${i}`, 1_000 + i * 17));
    for (const [i, miner] of miners.entries()) {
      const sent = jobs.issueShared(miner)!;
      const line = encodeJobNotification(sent);
      // The bytes the batched writer copies for it (no string made), and the job as strings.
      const copyable = encodeJobLine(sent);
      if (typeof copyable === 'string') throw new Error('a shared blob job line should be copied as bytes');
      const bytes = Buffer.alloc(copyable.byteLength);
      copyable.copyTo(bytes, 0);
      const job = miner.lastJob!;
      expect(job.nonceTopByte).toBe((i % 255) + 1);
      expect(line).toBe(referenceLine(reference, miner));
      expect(bytes.toString('latin1')).toBe(line);
      const { blob, job_id, target, algo, height } = sent;
      expect({ blob, job_id, target, algo, height }).toEqual(JSON.parse(line).params);
      // What the session keeps for its shares: the blob with a zero nonce, as on a job of its own.
      expect(bytesToHex(job.hashingBlob)).toBe(
        bytesToHex(reference.template.buildJob(job.extraNonce).hashingBlob),
      );
    }
  });
});
