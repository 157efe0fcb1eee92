import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coinAmountAtomic } from '../../src/config/coin-amount.js';
import { loadConfigFile, parseConfig } from '../../src/config/load-config.js';
import { parseCoins } from '../../src/fuego/money.js';
import { parseApiOptions } from '../../src/servers/api/api-options.js';
import { configErrorOf } from '../helpers/config-error.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('configuration', () => {
  it('fills every default from an empty object and freezes the result', () => {
    const config = parseConfig({});
    expect(config.daemon).toEqual({ host: '127.0.0.1', port: 18180, timeoutMs: 10_000, retries: 3 });
    expect(config.wallet.port).toBe(8070);
    expect(config.pow.implementation).toBe('auto');
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.daemon)).toBe(true);
  });

  it('names an unknown key with its full path', () => {
    const error = configErrorOf(() => parseConfig({ pow: { wrokers: 2 } }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('pow.wrokers: unknown key');
  });

  it('names a key with a bad value', () => {
    const error = configErrorOf(() => parseConfig({ daemon: { port: 70000 } }));
    expect(error.message).toContain('daemon.port');
  });

  it('reports every problem at once', () => {
    const error = configErrorOf(() => parseConfig({ network: 'moon', log: { level: 'loud' } }));
    expect(error.data['issues']).toHaveLength(2);
  });

  it('refuses an exempt IP that is not one, naming the key, and spells the others as clients are seen', () => {
    const error = configErrorOf(() =>
      parseConfig({
        api: { rateLimit: { exemptIps: ['127.0.0.l'] } },
        stratum: { bans: { exemptIps: ['2001:db8::/129'] } },
      }),
    );
    expect(error.message).toContain('api.rateLimit.exemptIps.0');
    expect(error.message).toContain('"127.0.0.l" is not an IP address');
    expect(error.message).toContain('stratum.bans.exemptIps.0');
    // The API matches exempt clients by address only: a network there would never match.
    expect(() => parseConfig({ api: { rateLimit: { exemptIps: ['2001:db8:1:2::/64'] } } })).toThrow(
      /exemptIps\.0/,
    );
    const config = parseConfig({
      api: { rateLimit: { exemptIps: ['2001:DB8:0::1', '::ffff:192.0.2.7'] } },
      stratum: { bans: { exemptIps: ['2001:DB8:1:2::/64', ' 192.0.2.8 '] } },
    });
    expect(config.api.rateLimit.exemptIps).toEqual(['2001:db8::1', '192.0.2.7']);
    expect(config.stratum.bans.exemptIps).toEqual(['2001:db8:1:2::/64', '192.0.2.8']);
  });

  it('refuses a CORS origin a browser would never send, naming the key and index; spells the others as browsers do', () => {
    const error = configErrorOf(() =>
      parseConfig({
        api: {
          corsOrigins: [
            'https://pool.example',
            'pool.example',
            'https://pool.example/',
            'https://pool.example/dashboard',
            'ftp://pool.example',
            'https://user@pool.example',
            'https://pool.example?x=1',
          ],
        },
      }),
    );
    for (const index of [1, 2, 3, 4, 5, 6]) expect(error.message).toContain(`api.corsOrigins.${index}:`);
    expect(error.message).not.toContain('api.corsOrigins.0:');
    expect(error.message).toContain('"pool.example" is not an origin');
    // '*' allows any origin: listed beside others it would hide that they are moot.
    expect(() => parseConfig({ api: { corsOrigins: ['*', 'https://pool.example'] } })).toThrow(
      /api\.corsOrigins: "\*" allows any origin/,
    );
    expect(parseConfig({ api: { corsOrigins: ['*'] } }).api.corsOrigins).toEqual(['*']);
    const config = parseConfig({
      api: { corsOrigins: ['HTTPS://Pool.Example:443', 'http://127.0.0.1:8117', 'http://[::1]:80'] },
    });
    expect(config.api.corsOrigins).toEqual(['https://pool.example', 'http://127.0.0.1:8117', 'http://[::1]']);
  });

  it('rejects a file that is not JSON, naming the file', () => {
    const dir = tempDir('fuego-config-');
    const path = join(dir, 'pool.json');
    writeFileSync(path, '{ "daemon": ');
    const error = configErrorOf(() => loadConfigFile(path));
    expect(error.code).toBe('CONFIG_UNREADABLE');
    expect(error.message).toContain(path);
  });

  // A file holding only `null` loaded as "all defaults": `report` then read the Redis on 127.0.0.1.
  it('refuses a file whose JSON is not an object', () => {
    const dir = tempDir('fuego-config-');
    for (const text of ['null', '[]', '"pool"', '3']) {
      const path = join(dir, 'pool.json');
      writeFileSync(path, text);
      const error = configErrorOf(() => loadConfigFile(path));
      expect(error.code, text).toBe('CONFIG_INVALID');
      expect(error.message).toContain('(root)');
    }
  });

  it('loads a valid file', () => {
    const dir = tempDir('fuego-config-');
    const path = join(dir, 'pool.json');
    writeFileSync(path, JSON.stringify({ network: 'devnet', daemon: { port: 28180 } }));
    const config = loadConfigFile(path);
    expect(config.network).toBe('devnet');
    expect(config.daemon.port).toBe(28180);
    expect(config.daemon.host).toBe('127.0.0.1');
  });
});

describe('pool sections', () => {
  it('defaults to one stratum port on 127.0.0.1:3333', () => {
    const config = parseConfig({});
    expect(config.stratum.ports).toEqual([
      { port: 3333, host: '127.0.0.1', difficulty: 5000, fixedDifficulty: false, solo: false, tls: false },
    ]);
    expect(config.stratum.vardiff.targetShareTimeSec).toBe(30);
    expect(config.templates.pollIntervalMs).toBe(100);
    expect(config.templates.tipCheckIntervalMs).toBe(25);
  });

  it('asks for certificate files when a port serves TLS', () => {
    const error = configErrorOf(() =>
      parseConfig({ stratum: { ports: [{ port: 3334, difficulty: 1, tls: true }] } }),
    );
    expect(error.message).toContain('stratum.tls');
  });

  it('refuses a vardiff window shorter than the target share time, naming the key', () => {
    const error = configErrorOf(() =>
      parseConfig({ stratum: { vardiff: { targetShareTimeSec: 60, retargetIntervalSec: 30 } } }),
    );
    expect(error.message).toContain('stratum.vardiff.retargetIntervalSec');
  });

  it('refuses a reorg audit depth or interval out of range, naming the key', () => {
    expect(configErrorOf(() => parseConfig({ payments: { reorgAuditBlocks: -1 } })).message).toContain(
      'payments.reorgAuditBlocks',
    );
    expect(configErrorOf(() => parseConfig({ payments: { reorgAuditBlocks: 1.5 } })).message).toContain(
      'payments.reorgAuditBlocks',
    );
    expect(configErrorOf(() => parseConfig({ payments: { reorgAuditIntervalSec: 10 } })).message).toContain(
      'payments.reorgAuditIntervalSec',
    );
    expect(parseConfig({}).payments).toMatchObject({ reorgAuditBlocks: 5_400, reorgAuditIntervalSec: 3_600 });
    expect(parseConfig({ payments: { reorgAuditBlocks: 0 } }).payments.reorgAuditBlocks).toBe(0);
  });

  it('refuses a miner chart resolution that is not a whole number of minutes, naming the key', () => {
    // The charts are drawn from minute buckets: 90 s was accepted at start, and then every read of
    // a miner's chart threw, so /api/miners/:address, /workers and /stats_address answered 500.
    const error = configErrorOf(() => parseConfig({ api: { minerChartResolutionMs: 90_000 } }));
    expect(error.message).toContain('api.minerChartResolutionMs');
    expect(() => parseApiOptions({ minerChartResolutionMs: 90_000 })).toThrow(/api\.minerChartResolutionMs/);
    expect(parseConfig({ api: { minerChartResolutionMs: 120_000 } }).api.minerChartResolutionMs).toBe(
      120_000,
    );
  });

  it('refuses a stratum timeout longer than a Node timer can wait, naming the key', () => {
    // Node runs a timer longer than 2^31 - 1 ms after 1 ms: a login or idle timeout of ~35 days
    // was accepted and then closed every miner's connection right after it connected or logged in.
    for (const key of ['loginTimeoutMs', 'idleTimeoutMs', 'writeTimeoutMs']) {
      const error = configErrorOf(() => parseConfig({ stratum: { limits: { [key]: 3_000_000_000 } } }));
      expect(error.message).toContain(`stratum.limits.${key}`);
      expect(parseConfig({ stratum: { limits: { [key]: 2_147_483_647 } } }).stratum.limits).toHaveProperty(
        key,
        2_147_483_647,
      );
    }
  });

  it('refuses two ports on the same address', () => {
    const error = configErrorOf(() =>
      parseConfig({
        stratum: {
          ports: [
            { port: 3333, difficulty: 1 },
            { port: 3333, difficulty: 2 },
          ],
        },
      }),
    );
    expect(error.message).toContain('stratum.ports');
  });

  // Binding 127.0.0.1:3333 after 0.0.0.0:3333 fails (EADDRINUSE), and the stratum ports open only
  // with the first template: a pool whose daemon syncs for hours found the clash only then.
  it('refuses two ports on the same port where one host is a wildcard, naming both', () => {
    for (const [a, b] of [
      ['0.0.0.0', '127.0.0.1'],
      ['192.0.2.5', '0.0.0.0'],
      ['::', '127.0.0.1'],
      ['::', '::1'],
    ] as const) {
      const error = configErrorOf(() =>
        parseConfig({
          stratum: {
            ports: [
              { port: 3333, host: a, difficulty: 1 },
              { port: 3333, host: b, difficulty: 2 },
            ],
          },
        }),
      );
      expect(error.message, `${a} and ${b}`).toContain('stratum.ports.1');
      expect(error.message).toContain(`${a}:3333`);
    }
    // Different ports, or two specific addresses, or IPv4 and IPv6 specific hosts: no clash.
    expect(() =>
      parseConfig({
        stratum: {
          ports: [
            { port: 3333, host: '0.0.0.0', difficulty: 1 },
            { port: 3334, host: '127.0.0.1', difficulty: 2 },
            { port: 3335, host: '127.0.0.1', difficulty: 2 },
            { port: 3335, host: '192.0.2.5', difficulty: 2 },
            { port: 3336, host: '0.0.0.0', difficulty: 2 },
            { port: 3336, host: '::1', difficulty: 2 },
          ],
        },
      }),
    ).not.toThrow();
  });

  it('runs one stratum process by default and refuses node ids past 65535 for the children', () => {
    expect(parseConfig({}).stratum.processes).toBe(1);
    expect(parseConfig({ pool: { nodeId: 65534 }, stratum: { processes: 2 } }).stratum.processes).toBe(2);
    const error = configErrorOf(() => parseConfig({ pool: { nodeId: 65535 }, stratum: { processes: 2 } }));
    expect(error.message).toContain('stratum.processes');
    expect(error.message).toContain('65535');
    expect(configErrorOf(() => parseConfig({ stratum: { processes: 0 } })).message).toContain(
      'stratum.processes',
    );
    expect(configErrorOf(() => parseConfig({ stratum: { processes: 'two' } })).message).toContain(
      'stratum.processes',
    );
    // One per core; the node id range is checked once the count is known.
    const auto = parseConfig({ pool: { nodeId: 65535 }, stratum: { processes: 'auto' } });
    expect(auto.stratum.processes).toBe('auto');
  });
});

describe('pool name', () => {
  it('is one word, since miners sign messages that contain it', () => {
    expect(parseConfig({}).pool.name).toBe('fuego-pool');
    expect(parseConfig({ pool: { name: 'pool.example.org' } }).pool.name).toBe('pool.example.org');
    for (const name of ['my pool', 'a:b', '', '-x', 'x'.repeat(65)]) {
      expect(configErrorOf(() => parseConfig({ pool: { name } })).message).toContain('pool.name');
    }
  });
});

describe('redis section', () => {
  it('asks for sentinels and a master name in sentinel mode', () => {
    const error = configErrorOf(() => parseConfig({ redis: { mode: 'sentinel' } }));
    expect(error.message).toContain('redis.sentinels');
  });

  it('asks for nodes in cluster mode', () => {
    const error = configErrorOf(() => parseConfig({ redis: { mode: 'cluster' } }));
    expect(error.message).toContain('redis.nodes');
  });

  // "127.0.0.1:6379" stopped the pool with a TypeError stack trace once FUEGO_POOL_REDIS_PASSWORD
  // was set, and "localhost:6379" silently lost that password: the URL is checked at load now.
  it('refuses a url that is not redis:// or rediss://, naming the key but not echoing it', () => {
    for (const url of ['127.0.0.1:6379', 'localhost:6379', 'http://127.0.0.1:6379', 'redis://']) {
      const error = configErrorOf(() => parseConfig({ redis: { url } }));
      expect(error.message).toContain('redis.url');
      expect(error.message).toContain('redis://');
    }
    const withSecret = configErrorOf(() => parseConfig({ redis: { url: 'localhost:6379?password=s3cret' } }));
    expect(withSecret.message).not.toContain('s3cret');
    for (const url of [
      'redis://127.0.0.1:6379',
      'rediss://:pw@redis.example.org:6380/2',
      'redis://[::1]:6379',
    ]) {
      expect(parseConfig({ redis: { url } }).redis.url).toBe(url);
    }
  });
});

describe('coin amounts in the config', () => {
  it('accepts exactly the texts parseCoins converts, and gives the same atomic units', () => {
    for (const text of ['0', '1', '0.5', '12.3456789', '0.0000001', '1844674407370.9551615']) {
      expect(coinAmountAtomic(text)).toBe(parseCoins(text));
    }
    for (const text of ['', '-1', '+1', '1e3', '.5', '1.', '0.12345678', ' 1', '1844674407370.9551616']) {
      expect(coinAmountAtomic(text)).toBeNull();
      expect(() => parseCoins(text)).toThrow();
    }
  });
});
