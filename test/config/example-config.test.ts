import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load-config.js';

describe('shipped example configurations', () => {
  it('config/example.json is valid as shipped', () => {
    const path = new URL('../../config/example.json', import.meta.url).pathname;
    expect(loadConfigFile(path).network).toBe('mainnet');
  });

  it('config/mainnet.example.json is valid as shipped', () => {
    const path = new URL('../../config/mainnet.example.json', import.meta.url).pathname;
    const config = loadConfigFile(path);
    expect(config.stratum.ports).toHaveLength(3);
    expect(config.payments.scheme).toBe('pplns');
    expect(config.payments.payouts.maxThresholdCoins).toBe('1000');
  });
});
