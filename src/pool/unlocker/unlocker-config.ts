import { percentToBasisPoints, type UnlockerConfig } from '../../config/payments-schema.js';
import type { FeePolicy } from '../schemes/types.js';

export {
  percentToBasisPoints,
  type UnlockerConfig,
  unlockerConfigFields,
  unlockerConfigSchema,
} from '../../config/payments-schema.js';

/** The schemes' fee policies (pool blocks and solo blocks) from validated config. */
export function feePoliciesFrom(config: UnlockerConfig): { pool: FeePolicy; solo: FeePolicy } {
  const bp = (value: number | string): number => {
    const converted = percentToBasisPoints(value);
    if (converted === null) throw new RangeError('unvalidated percentage');
    return converted;
  };
  const feeAddress = config.feeAddress === undefined ? {} : { feeAddress: config.feeAddress };
  const pool: FeePolicy = {
    poolFeeBasisPoints: bp(config.poolFeePercent),
    finderBonusBasisPoints: bp(config.finderBonusPercent),
    ...feeAddress,
  };
  const solo: FeePolicy = {
    poolFeeBasisPoints: bp(config.soloFeePercent ?? config.poolFeePercent),
    finderBonusBasisPoints: 0,
    ...feeAddress,
  };
  return { pool, solo };
}
