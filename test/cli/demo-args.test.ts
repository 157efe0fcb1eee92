import { describe, expect, it } from 'vitest';
import { parseDemoArgs } from '../../src/cli/commands/demo.js';

describe('fuego-pool demo arguments', () => {
  it('runs the stratum role in child processes with --stratum-processes', () => {
    const { options } = parseDemoArgs(['--stratum-processes', '2', '--no-tls']);
    expect(options.poolOverrides?.stratum).toEqual({ processes: 2 });
    expect(options.tlsPort).toBeNull();
    expect(parseDemoArgs(['--stratum-processes', 'auto']).options.poolOverrides?.stratum).toEqual({
      processes: 'auto',
    });
    expect(parseDemoArgs([]).options.poolOverrides).toBeUndefined();
  });

  it('refuses a process count out of range, naming the flag', () => {
    expect(() => parseDemoArgs(['--stratum-processes', '0'])).toThrow(
      '--stratum-processes needs a number from 1 to 64',
    );
    expect(() => parseDemoArgs(['--stratum-processes', 'two'])).toThrow(
      '--stratum-processes needs a whole number',
    );
  });
});
