import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load-config.js';

describe('shipped example configuration', () => {
  it('is valid as shipped, so operators can start from it', () => {
    const path = new URL('../../config/example.json', import.meta.url).pathname;
    expect(loadConfigFile(path).network).toBe('mainnet');
  });
});
