import { describe, expect, it } from 'vitest';
import { warnWhenPowNotNative } from '../../src/app/stratum-role.js';
import { captureLogs } from '../helpers/log-capture.js';

describe('stratum role start: the PoW implementation', () => {
  it('warns when shares are verified by the TypeScript reference', () => {
    const { logger, records } = captureLogs('info');
    warnWhenPowNotNative('typescript', logger);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ level: 40, pow: 'typescript' });
    expect(String(records[0]?.['msg'])).toContain('FUEGO_POOL_REQUIRE_NATIVE=1');
  });

  it('says nothing when the native addon verifies them', () => {
    const { logger, records } = captureLogs('info');
    warnWhenPowNotNative('native', logger);
    warnWhenPowNotNative('native-portable', logger);
    expect(records).toEqual([]);
  });
});
