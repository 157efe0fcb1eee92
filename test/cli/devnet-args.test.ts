import { describe, expect, it } from 'vitest';
import { parseDevnetArgs } from '../../src/cli/commands/devnet.js';
import { parseDevnetConfig } from '../../src/devnet/devnet-config.js';

describe('fuego-pool devnet arguments', () => {
  it('sets the coinbase maturity and the decoy requirement', () => {
    const { overrides } = parseDevnetArgs(['--coinbase-maturity', '10', '--require-decoys']);
    const config = parseDevnetConfig(overrides);
    expect(config.daemon.coinbaseMaturityBlocks).toBe(10);
    expect(config.wallet.requireDecoys).toBe(true);
    expect(parseDevnetArgs(['--coinbase-maturity=15']).overrides.daemon).toEqual({
      coinbaseMaturityBlocks: 15,
    });
  });

  it('leaves both at their defaults (Fuego: 60, decoys not required) without the flags', () => {
    const config = parseDevnetConfig(parseDevnetArgs([]).overrides);
    expect(config.daemon.coinbaseMaturityBlocks).toBe(60);
    expect(config.wallet.requireDecoys).toBe(false);
  });

  it('refuses a maturity that is not a number, naming the flag', () => {
    expect(() => parseDevnetArgs(['--coinbase-maturity', 'soon'])).toThrow(
      '--coinbase-maturity needs a number',
    );
  });
});
