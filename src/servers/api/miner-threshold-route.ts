import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { MoneyError, parseCoins } from '../../fuego/money.js';
import {
  decodeSignatureText,
  SignatureTextError,
  verifyMessageSignature,
} from '../../fuego/signed-message.js';
import {
  checkThresholdSetting,
  ThresholdRuleError,
  type ThresholdSetting,
  thresholdMessage,
} from '../../pool/payouts/miner-threshold.js';
import type { RedisMinerThresholds } from '../../store/payments/miner-thresholds.js';
import { ApiError, type ApiErrorCode } from './api-errors.js';
import {
  addressParamsSchema,
  jsonSchema,
  replySchemas,
  setThresholdBodySchema,
  setThresholdReplySchema,
} from './api-schemas.js';
import { parseMinerAddress } from './miner-address.js';
import type { PoolInfo } from './pool-info.js';
import { payoutThresholdView, thresholdLimitsOf } from './stats-service.js';

export interface MinerThresholdRouteModules {
  readonly thresholds: Pick<RedisMinerThresholds, 'read' | 'write'>;
  readonly poolInfo: PoolInfo;
  readonly clock: () => number;
  readonly maxSignatureChecksPerSecond: number;
}

type SetThresholdBody = z.infer<typeof setThresholdBodySchema>;

const SIGNATURE_TEXT_CODES: Record<SignatureTextError['code'], ApiErrorCode> = {
  BAD_PREFIX: 'MALFORMED_SIGNATURE',
  BAD_ENCODING: 'MALFORMED_SIGNATURE',
  TRUNCATED: 'SIGNATURE_TRUNCATED',
  TOO_LONG: 'SIGNATURE_TOO_LONG',
};

/**
 * `POST /api/miners/:address/threshold` `{ thresholdCoins, timestampSec, signature }`: sets the
 * miner's payout threshold when `signature` is the wallet's `sign_message` of
 * thresholdMessage(pool name, address, threshold, timestampSec) (API.md "Payout threshold").
 * The cheap checks come first (API.md lists the order); the signature (~5 ms of bigint
 * arithmetic) is checked only for a request that would otherwise be accepted, and at most
 * `maxSignatureChecksPerSecond` times a second. The request body is never logged: a careless
 * client may send the wallet's whole `sign_message` output, which can hold its secret keys.
 */
export function registerMinerThresholdRoute(app: FastifyInstance, modules: MinerThresholdRouteModules): void {
  const limits = thresholdLimitsOf(modules.poolInfo);
  const budget = new PerSecondBudget(modules.maxSignatureChecksPerSecond, modules.clock);

  app.post<{ Params: { address: string }; Body: SetThresholdBody }>(
    '/api/miners/:address/threshold',
    {
      schema: {
        params: jsonSchema(addressParamsSchema, 'input'),
        body: jsonSchema(setThresholdBodySchema, 'input'),
        response: replySchemas(setThresholdReplySchema),
      },
    },
    async (request) => {
      const address = parseMinerAddress(request.params.address);
      const setting: ThresholdSetting = {
        address,
        thresholdAtomic: coinsToAtomic(request.body.thresholdCoins),
        timestampSec: request.body.timestampSec,
      };
      const nowSec = Math.floor(modules.clock() / 1000);
      const last = await modules.thresholds.read(address);
      asApiError(() => checkThresholdSetting(setting, limits, nowSec, last?.timestampSec ?? null));
      asApiError(() => decodeSignatureText(request.body.signature));
      const message = thresholdMessage(modules.poolInfo.name, setting);
      if (!budget.take()) throw new ApiError('TOO_MANY_REQUESTS');
      if (!asApiError(() => verifyMessageSignature(message, address, request.body.signature))) {
        throw new ApiError('BAD_SIGNATURE', `the message was ${message}`);
      }
      const own = setting.thresholdAtomic === limits.minAtomic ? null : setting.thresholdAtomic;
      if (!(await modules.thresholds.write(address, own, setting.timestampSec))) {
        throw new ApiError('STALE_TIMESTAMP');
      }
      return {
        address,
        payoutThreshold: payoutThresholdView(
          { thresholdAtomic: own, timestampSec: setting.timestampSec },
          limits,
        ),
      };
    },
  );
}

function coinsToAtomic(text: string): bigint {
  try {
    return parseCoins(text);
  } catch (error) {
    if (error instanceof MoneyError) throw new ApiError('BAD_REQUEST', `thresholdCoins: ${error.message}`);
    throw error;
  }
}

/** Runs `check`, turning the rule and signature-text errors into the API's codes. */
function asApiError<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ThresholdRuleError) throw new ApiError(error.code, error.message, { ...error.data });
    if (error instanceof SignatureTextError) throw new ApiError(SIGNATURE_TEXT_CODES[error.code]);
    throw error;
  }
}

/** At most `perSecond` takes in each one-second window of `clock`. */
class PerSecondBudget {
  readonly #perSecond: number;
  readonly #clock: () => number;
  #windowStartMs = Number.NEGATIVE_INFINITY;
  #used = 0;

  constructor(perSecond: number, clock: () => number) {
    this.#perSecond = perSecond;
    this.#clock = clock;
  }

  take(): boolean {
    const now = this.#clock();
    if (now - this.#windowStartMs >= 1_000 || now < this.#windowStartMs) {
      this.#windowStartMs = now;
      this.#used = 0;
    }
    if (this.#used >= this.#perSecond) return false;
    this.#used += 1;
    return true;
  }
}
