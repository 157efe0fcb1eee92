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

  it("sets the wallet's scan lag and rate (default 0: it sees every block at once)", () => {
    const config = parseDevnetConfig(
      parseDevnetArgs(['--wallet-sync-lag', '5', '--wallet-scan-rate=2.5']).overrides,
    );
    expect(config.wallet).toMatchObject({ syncLagBlocks: 5, scanBlocksPerSecond: 2.5 });
    expect(parseDevnetConfig(parseDevnetArgs([]).overrides).wallet).toMatchObject({
      syncLagBlocks: 0,
      scanBlocksPerSecond: 0,
    });
    expect(() => parseDevnetArgs(['--wallet-sync-lag'])).toThrow('--wallet-sync-lag needs a number');
    expect(() => parseDevnetConfig(parseDevnetArgs(['--wallet-sync-lag', '-1']).overrides)).toThrow(
      'wallet.syncLagBlocks',
    );
  });

  it('refuses a maturity that is not a number, naming the flag', () => {
    expect(() => parseDevnetArgs(['--coinbase-maturity', 'soon'])).toThrow(
      '--coinbase-maturity needs a number',
    );
  });
});
