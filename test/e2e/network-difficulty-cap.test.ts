import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoStack, startDemoStack } from '../../src/app/demo-stack.js';
import { checkHash, difficultyFromTargetHex } from '../../src/fuego/difficulty.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { createLogger } from '../../src/log/logger.js';
import { createHashrateKeys, HOUR_MS, MINUTE_MS } from '../../src/store/hashrate/hashrate-keys.js';
import { createShareKeys } from '../../src/store/shares/share-keys.js';
import { testHasher } from '../devnet/devnet-test-helpers.js';
import { StratumLineClient } from '../helpers/stratum-line-client.js';
import { until } from '../helpers/until.js';

/**
 * A miner whose own difficulty is above the network's must not lose blocks to it: on a devnet at
 * network difficulty 1,000, a `+5000` login gets jobs at 1,000, and a hash that meets 1,000 (not
 * 5,000) is a block on the chain and counts in the miner's hashrate like any share; and as many
 * shares are blocks then, a second block on a solved tip is credited as a share, never refused.
 * The real pieces: the devnet, a private Redis, the pool node with its stratum server.
 */
const NETWORK_DIFFICULTY = 1_000;
const MINER_DIFFICULTY = 5_000;
const HASHES_PER_TURN = 50;
const keys = createShareKeys('fuego');
const hashrateKeys = createHashrateKeys('fuego');

let stack: DemoStack;
let redis: Redis;

beforeAll(async () => {
  stack = await startDemoStack(
    {
      stratumPort: 0,
      tlsPort: null,
      networkDifficulty: NETWORK_DIFFICULTY,
      shareDifficulty: MINER_DIFFICULTY,
      daemonPort: 0,
      walletPort: 0,
      apiPort: null,
    },
    createLogger({ level: 'warn' }),
  );
  redis = new Redis(stack.redis.url);
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await stack?.stop();
});

interface Job {
  readonly job_id: string;
  readonly blob: string;
  readonly target: string;
}

/**
 * The first `count` nonces whose cn/upx2 hash meets the network difficulty but not the miner's own.
 * Thousands of hashes: it lets the event loop run every HASHES_PER_TURN, as the pool and the devnet
 * share this process (on a loaded machine one go froze them for 10-30 s, past their timeouts).
 */
async function blocksBelowMinerDifficulty(
  job: Job,
  count: number,
): Promise<{ nonce: string; result: string }[]> {
  const blob = hexToBytes(job.blob);
  const hasher = testHasher();
  const found = [];
  for (let nonce = 0; found.length < count; nonce++) {
    if (nonce % HASHES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    Buffer.from(blob.buffer, blob.byteOffset, blob.length).writeUInt32LE(nonce, 39);
    const hash = hasher.hash(blob);
    if (checkHash(hash, NETWORK_DIFFICULTY) && !checkHash(hash, MINER_DIFFICULTY)) {
      found.push({ nonce: bytesToHex(blob.subarray(39, 43)), result: bytesToHex(hash) });
    }
  }
  return found;
}

/** Logs a +MINER_DIFFICULTY miner in as `rigid`: its session id and first job. */
async function loginCapped(client: StratumLineClient, rigid: string): Promise<{ id: string; job: Job }> {
  const login = await client.request('login', {
    login: `${stack.minerAddress}+${MINER_DIFFICULTY}`,
    pass: 'x',
    rigid,
    agent: 'cap-test/1.0',
    algo: ['cn/upx2'],
  });
  const result = login?.['result'] as { id: string; job: Job } | undefined;
  if (result === undefined) throw new Error(`login refused: ${JSON.stringify(login?.['error'])}`);
  return result;
}

/** The miner's difficulty summed over the hashrate minute buckets between two times. */
async function minerBucketTotal(address: string, fromMs: number, toMs: number): Promise<number> {
  let total = 0;
  for (let hour = Math.floor(fromMs / HOUR_MS); hour <= Math.floor(toMs / HOUR_MS); hour++) {
    const minutes = await redis.hgetall(hashrateKeys.minerMinutes(hour, address));
    for (const [minute, difficulty] of Object.entries(minutes)) {
      const startMs = hour * HOUR_MS + Number(minute) * MINUTE_MS;
      if (startMs + MINUTE_MS > fromMs && startMs <= toMs) total += Number(difficulty);
    }
  }
  return total;
}

describe('job difficulty capped at the network difficulty', () => {
  it('a +5000 miner on a 1,000 network: a hash meeting 1,000 is a block on the chain, counted once as work', async () => {
    const address = stack.minerAddress;
    const client = await StratumLineClient.open(stack.stratumPort);
    try {
      const { id, job } = await loginCapped(client, 'capped');
      expect(difficultyFromTargetHex(job.target)).toBe(BigInt(NETWORK_DIFFICULTY));

      const { chain } = stack.devnet;
      const heightBefore = chain.height;
      const startedMs = Date.now();
      const [share] = await blocksBelowMinerDifficulty(job, 1);
      const reply = await client.request('submit', { id, job_id: job.job_id, ...share, algo: 'cn/upx2' });
      expect(reply?.['error']).toBeNull();
      expect(reply?.['result']).toEqual({ status: 'OK' });

      // The devnet took the block: its chain grew by exactly the block the pool recorded.
      expect(chain.height).toBe(heightBefore + 1);
      const tip = chain.tip;
      expect(tip.height).toBe(heightBefore);
      const candidate = await redis.hgetall(keys.block(tip.id));
      expect(candidate).toMatchObject({
        height: String(heightBefore),
        finderAddress: address,
        finderWorker: 'capped',
        shareDifficulty: String(NETWORK_DIFFICULTY),
        submitResult: 'accepted',
        status: 'pending',
      });
      expect(await redis.zscore(keys.blockCandidates, tip.id)).toBe(String(heightBefore));
      // Its block-found was published before the OK, and its unannounced mark cleared: the leader
      // has nothing to tell again.
      expect(await redis.zscore(keys.blocksAnnouncePending, tip.id)).toBeNull();

      // Work like any other share: in the miner's stats and, once the batcher wrote, its hashrate.
      expect(await redis.hget(keys.worker(address, 'capped'), 'difficultyTotal')).toBe(
        String(NETWORK_DIFFICULTY),
      );
      const counted = await until(
        async () => (await minerBucketTotal(address, startedMs, Date.now())) || undefined,
        5_000,
        'the block-solving share in the hashrate buckets',
      );
      expect(counted).toBe(NETWORK_DIFFICULTY);
    } finally {
      client.close();
    }
  }, 60_000);

  it('two blocks on one job sent together: one joins the chain, the other is credited as a stale share, none is refused', async () => {
    const { chain } = stack.devnet;
    const client = await StratumLineClient.open(stack.stratumPort);
    try {
      const session = await loginCapped(client, 'pair');
      // A job on the chain's tip (the block of the test before moved it).
      const job = await until(
        async () => {
          const reply = await client.request('getjob', { id: session.id });
          const next = reply?.['result'] as (Job & { height: number }) | undefined;
          return next?.height === chain.height ? next : undefined;
        },
        5_000,
        'a job on the current tip',
      );
      const heightBefore = chain.height;
      const [first, second] = await blocksBelowMinerDifficulty(job, 2);
      // Sent in one go: the pool handles both at once, as it would two shares of a fast miner.
      const replies = await Promise.all(
        [first!, second!].map((share) =>
          client.request('submit', { id: session.id, job_id: job.job_id, ...share, algo: 'cn/upx2' }),
        ),
      );
      expect(replies.map((reply) => reply?.['result'])).toEqual([{ status: 'OK' }, { status: 'OK' }]);

      expect(chain.height).toBe(heightBefore + 1);
      expect(await redis.hget(keys.block(chain.tip.id), 'submitResult')).toBe('accepted');
      // The other one never reached the daemon: nothing refused (a refused block is recorded before
      // its miner hears OK), and it counts as work.
      expect(await redis.zcard(keys.blocksRejected)).toBe(0);
      expect(await redis.hget(keys.worker(stack.minerAddress, 'pair'), 'sharesValid')).toBe('2');
      const entries = await redis.xrevrange(keys.shares, '+', '-', 'COUNT', 2);
      const staleFlags = entries.map(([, fields]) => fields[fields.indexOf('x') + 1]).sort();
      expect(staleFlags).toEqual(['0', '1']);
    } finally {
      client.close();
    }
  }, 60_000);
});
