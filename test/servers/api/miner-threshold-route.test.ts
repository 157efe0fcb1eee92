import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signMessage } from '../../../src/devnet/wallet/message-signer.js';
import { thresholdMessage } from '../../../src/pool/payouts/miner-threshold.js';
import type { ApiErrorCode } from '../../../src/servers/api/api-errors.js';
import {
  errorReplySchema,
  minerSchema,
  setThresholdReplySchema,
} from '../../../src/servers/api/api-schemas.js';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { RedisMinerThresholds } from '../../../src/store/payments/miner-thresholds.js';
import { DEFAULT_MAX_WORKERS_PER_MINER } from '../../helpers/config-defaults.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoWallet, TEST_POOL_INFO } from './api-fixtures.js';

const WALLET = fuegoWallet(41);
const OTHER_WALLET = fuegoWallet(42);
const START_MS = 1_750_000_000_000;
const MIN = TEST_POOL_INFO.payments.minPaymentAtomic; // 1 XFG
const MAX = TEST_POOL_INFO.payments.maxThresholdAtomic; // 1000 XFG

interface Signed {
  readonly thresholdCoins: string;
  readonly timestampSec: number;
  readonly signature: string;
}

/** What a miner sends after `sign_message` in their wallet (the pool name is part of the text). */
function signed(
  thresholdCoins: string,
  thresholdAtomic: bigint,
  timestampSec: number,
  options: { wallet?: typeof WALLET; address?: string; poolName?: string } = {},
): Signed {
  const address = options.address ?? WALLET.address;
  const message = thresholdMessage(options.poolName ?? TEST_POOL_INFO.name, {
    address,
    thresholdAtomic,
    timestampSec,
  });
  return {
    thresholdCoins,
    timestampSec,
    signature: signMessage(message, (options.wallet ?? WALLET).spendSecretKey),
  };
}

describe('POST /api/miners/:address/threshold (a payout threshold signed by the miner wallet)', () => {
  let redis: Redis;
  let app: FastifyInstance;
  let nowMs = START_MS;
  const keyPrefix = 'api-threshold-test';
  const nowSec = () => Math.floor(nowMs / 1000);
  useTestRedisClient((client) => {
    redis = client;
  });

  beforeAll(async () => {
    // One share, so the miner page exists.
    await new HashrateBucketWriter(
      { keyPrefix, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
      { redis },
    ).record([
      {
        address: WALLET.address,
        worker: 'rig',
        difficulty: 1000,
        height: 10,
        timestampMs: START_MS - 60_000,
        solo: false,
        stale: false,
      },
    ]);
    ({ app } = await buildTestApi({ redis, keyPrefix, clock: () => nowMs }));
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = (body: unknown, address = WALLET.address) =>
    app.inject({ method: 'POST', url: `/api/miners/${address}/threshold`, payload: body as object });
  const errorCode = async (body: unknown, address?: string): Promise<[number, ApiErrorCode]> => {
    const reply = await post(body, address);
    return [reply.statusCode, errorReplySchema.parse(JSON.parse(reply.payload)).error.code];
  };
  const minerThreshold = async () =>
    minerSchema.parse(JSON.parse((await app.inject({ url: `/api/miners/${WALLET.address}` })).payload))
      .payoutThreshold;
  const forPayouts = (address = WALLET.address) =>
    new RedisMinerThresholds({ keyPrefix, maxThresholdAtomic: MAX }, { redis }).thresholdOf(address);

  it('shows the pool minimum until the miner sets a threshold; a signed one is stored, shown and used for payouts', async () => {
    expect(await minerThreshold()).toEqual({
      thresholdAtomic: MIN.toString(),
      custom: false,
      minimumAtomic: MIN.toString(),
      maximumAtomic: MAX.toString(),
      lastTimestampSec: null,
    });
    // The exact text the miner signs.
    expect(
      thresholdMessage(TEST_POOL_INFO.name, {
        address: WALLET.address,
        thresholdAtomic: 250_000_000n,
        timestampSec: nowSec(),
      }),
    ).toBe(`payout-threshold:v1:fuego-test-pool:${WALLET.address}:25.0000000:${nowSec()}`);

    const reply = await post(signed('25', 250_000_000n, nowSec()));
    expect(reply.statusCode).toBe(200);
    const expected = {
      thresholdAtomic: '250000000',
      custom: true,
      minimumAtomic: MIN.toString(),
      maximumAtomic: MAX.toString(),
      lastTimestampSec: nowSec(),
    };
    expect(setThresholdReplySchema.parse(JSON.parse(reply.payload))).toEqual({
      address: WALLET.address,
      payoutThreshold: expected,
    });
    expect(await minerThreshold()).toEqual(expected);
    expect(await forPayouts()).toBe(250_000_000n);
  });

  it('refuses a replayed message and one older than the last accepted (STALE_TIMESTAMP)', async () => {
    nowMs += 10_000;
    const first = signed('30.5', 305_000_000n, nowSec());
    expect((await post(first)).statusCode).toBe(200);
    expect(await errorCode(first)).toEqual([409, 'STALE_TIMESTAMP']);
    expect(await errorCode(signed('40', 400_000_000n, nowSec() - 5))).toEqual([409, 'STALE_TIMESTAMP']);
    expect(await forPayouts()).toBe(305_000_000n);
  });

  it('goes back to the pool minimum with the same kind of signed call; the older raise stays dead', async () => {
    nowMs += 10_000;
    const raise = signed('50', 500_000_000n, nowSec() - 1);
    const lower = signed('1', MIN, nowSec());
    expect((await post(lower)).statusCode).toBe(200);
    expect(await minerThreshold()).toMatchObject({
      thresholdAtomic: MIN.toString(),
      custom: false,
      lastTimestampSec: nowSec(),
    });
    expect(await forPayouts()).toBeUndefined();
    expect(await errorCode(raise)).toEqual([409, 'STALE_TIMESTAMP']);
  });

  it('refuses a threshold above the cap or below the minimum, and a timestamp far from the pool clock', async () => {
    nowMs += 10_000;
    expect(await errorCode(signed('1000.0000001', MAX + 1n, nowSec()))).toEqual([
      400,
      'THRESHOLD_ABOVE_MAXIMUM',
    ]);
    expect(await errorCode(signed('0.99', 9_900_000n, nowSec()))).toEqual([400, 'THRESHOLD_BELOW_MINIMUM']);
    expect(await errorCode(signed('5', 50_000_000n, nowSec() - 86_401))).toEqual([
      400,
      'TIMESTAMP_OUT_OF_RANGE',
    ]);
    expect(await errorCode(signed('5', 50_000_000n, nowSec() + 301))).toEqual([
      400,
      'TIMESTAMP_OUT_OF_RANGE',
    ]);
    // The cap itself is allowed.
    expect((await post(signed('1000', MAX, nowSec()))).statusCode).toBe(200);
    expect(await forPayouts()).toBe(MAX);
  });

  it("refuses a signature that is not the address wallet's signature of this pool's message (BAD_SIGNATURE)", async () => {
    nowMs += 10_000;
    const t = nowSec();
    expect(await errorCode(signed('7', 70_000_000n, t, { wallet: OTHER_WALLET }))).toEqual([
      403,
      'BAD_SIGNATURE',
    ]);
    expect(await errorCode({ ...signed('7', 70_000_000n, t), thresholdCoins: '8' })).toEqual([
      403,
      'BAD_SIGNATURE',
    ]);
    expect(await errorCode(signed('7', 70_000_000n, t, { poolName: 'another-pool' }))).toEqual([
      403,
      'BAD_SIGNATURE',
    ]);
    // Another miner's message, signed by that miner, sent for this address.
    const theirs = signed('7', 70_000_000n, t, { wallet: OTHER_WALLET, address: OTHER_WALLET.address });
    expect(await errorCode(theirs)).toEqual([403, 'BAD_SIGNATURE']);
    expect(await forPayouts()).toBe(MAX);
    expect(await forPayouts(OTHER_WALLET.address)).toBeUndefined();
  });

  it('refuses the whole sign_message output (it can hold secret keys), a cut one and a malformed one', async () => {
    nowMs += 10_000;
    const good = signed('9', 90_000_000n, nowSec());
    expect(await errorCode({ ...good, signature: `${good.signature}7ZpQa4` })).toEqual([
      400,
      'SIGNATURE_TOO_LONG',
    ]);
    expect(await errorCode({ ...good, signature: good.signature.slice(0, 60) })).toEqual([
      400,
      'SIGNATURE_TRUNCATED',
    ]);
    expect(await errorCode({ ...good, signature: `X${good.signature.slice(1)}` })).toEqual([
      400,
      'MALFORMED_SIGNATURE',
    ]);
    expect(await errorCode({ ...good, signature: `Sig${'0'.repeat(88)}` })).toEqual([
      400,
      'MALFORMED_SIGNATURE',
    ]);
    expect((await post(good)).statusCode).toBe(200);
  });

  it('validates the address and the body', async () => {
    nowMs += 10_000;
    const good = signed('9.5', 95_000_000n, nowSec());
    expect(await errorCode(good, 'fireNotAnAddress')).toEqual([400, 'INVALID_ADDRESS']);
    expect(await errorCode(good, `${WALLET.address.slice(0, -1)}x`)).toEqual([400, 'INVALID_ADDRESS']);
    expect(await errorCode({ ...good, thresholdCoins: '9.50000001' })).toEqual([400, 'BAD_REQUEST']);
    expect(await errorCode({ ...good, thresholdCoins: '-9' })).toEqual([400, 'BAD_REQUEST']);
    expect(await errorCode({ ...good, timestampSec: 1.5 })).toEqual([400, 'BAD_REQUEST']);
    expect(await errorCode({ thresholdCoins: '9.5', timestampSec: nowSec() })).toEqual([400, 'BAD_REQUEST']);
    expect((await post(good)).statusCode).toBe(200);
  });

  it('answers a body too large 413 and a body not JSON 415, with their own codes, not 400 BAD_REQUEST', async () => {
    const good = signed('9.5', 95_000_000n, nowSec());
    const url = `/api/miners/${WALLET.address}/threshold`;
    const huge = await app.inject({
      method: 'POST',
      url,
      payload: { ...good, signature: 'x'.repeat(20_000) },
    });
    expect([huge.statusCode, huge.json().error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const form = await app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ thresholdCoins: '9.5' }).toString(),
    });
    expect([form.statusCode, form.json().error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    for (const reply of [huge, form]) expect(errorReplySchema.safeParse(reply.json()).success).toBe(true);
  });

  it('checks at most maxSignatureChecksPerSecond signatures a second (TOO_MANY_REQUESTS beyond)', async () => {
    const { app: limited } = await buildTestApi({
      redis,
      keyPrefix: 'api-threshold-limit',
      clock: () => nowMs,
      options: { maxSignatureChecksPerSecond: 2 },
    });
    nowMs += 10_000;
    const forged = signed('7', 70_000_000n, nowSec(), { wallet: OTHER_WALLET });
    const codeOf = async (body: Signed) => {
      const reply = await limited.inject({
        method: 'POST',
        url: `/api/miners/${WALLET.address}/threshold`,
        payload: body,
      });
      return errorReplySchema.parse(JSON.parse(reply.payload)).error.code;
    };
    expect(await codeOf(forged)).toBe('BAD_SIGNATURE');
    expect(await codeOf(forged)).toBe('BAD_SIGNATURE');
    expect(await codeOf(forged)).toBe('TOO_MANY_REQUESTS');
    // Refused before any signature work: a request the rules refuse costs no check.
    expect(await codeOf(signed('0.5', 5_000_000n, nowSec()))).toBe('THRESHOLD_BELOW_MINIMUM');
    nowMs += 1_000;
    const reply = await limited.inject({
      method: 'POST',
      url: `/api/miners/${WALLET.address}/threshold`,
      payload: signed('3', 30_000_000n, nowSec()),
    });
    expect(reply.statusCode).toBe(200);
    await limited.close();
  });
});
