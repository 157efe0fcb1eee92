import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../../src/devnet/devnet.js';
import { WalletUpkeepStore } from '../../../src/store/payments/wallet-upkeep-store.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { startTestDevnet } from '../../devnet/devnet-test-helpers.js';
import { runCliForTest } from '../../helpers/cli.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { UPKEEP_REPORT } from '../../servers/control/control-fakes.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { type ControlFixture, startControlFixture } from '../control-cli-fixture.js';

const FOREIGN =
  'fireLatcLpwh9ut8LYbz1uTUfe9mhdnqF3n9TM79QdSx83VX1FDsP5z3TcfJRiFd4NjUw5QWBC6FaFrwY3LAGiHr5iQPKvTHmW';

describe('fuego-pool wallet optimize over the control socket', () => {
  let fixture: ControlFixture | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await fixture?.stop();
    fixture = undefined;
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('--socket asks the leader and prints each fusion it sent', async () => {
    fixture = await startControlFixture();
    const run = await runCliForTest(['wallet', 'optimize', '--socket', fixture.socketPath]);
    expect(run.code).toBe(0);
    expect(fixture.modules.leaderFake.optimizeCalls).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^pending: /);
    expect(lines.filter((line) => line.startsWith('sent '))).toEqual(
      UPKEEP_REPORT.sent.map((hash) => `sent      ${hash}`),
    );
    const json = await runCliForTest(['wallet', 'optimize', '--socket', fixture.socketPath, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ state: 'pending', sent: UPKEEP_REPORT.sent });
  });

  it('--config finds the socket from control.socketPath; exit 1 when the leader could not run it now', async () => {
    fixture = await startControlFixture();
    fixture.modules.leaderFake.upkeepReport = {
      ...UPKEEP_REPORT,
      state: 'deferred',
      detail: '1 payout batch(es) still open',
      sent: [],
      pending: [],
    };
    dir = mkdtempSync(join(tmpdir(), 'fpcfg-'));
    const config = join(dir, 'pool.json');
    writeFileSync(config, JSON.stringify({ control: { socketPath: fixture.socketPath } }));
    const run = await runCliForTest(['wallet', 'optimize', '--config', config]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^deferred: /);
    expect(fixture.modules.leaderFake.optimizeCalls).toBe(1);
  });

  it("reports the pool's refusal with its code", async () => {
    fixture = await startControlFixture({ leader: null });
    const run = await runCliForTest(['wallet', 'optimize', '--socket', fixture.socketPath]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('[PAYOUTS_UNAVAILABLE]');
  });

  it('prints its help with --help (exit 0) and its usage on wrong arguments (exit 2)', async () => {
    const help = await runCliForTest(['wallet', 'optimize', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: fuego-pool wallet optimize --config FILE');
    expect((await runCliForTest(['--help'])).stdout).toContain('wallet optimize');
    for (const args of [[], ['--socket', '/tmp/x.sock', '--standalone'], ['--config', 'x', 'extra']]) {
      const run = await runCliForTest(['wallet', 'optimize', ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('usage: fuego-pool wallet optimize');
    }
  });
});

describe('fuego-pool wallet optimize without a running pool', () => {
  let server: TestRedis;
  let devnet: Devnet;
  let redis: Redis;
  let dir: string;

  beforeAll(async () => {
    [server, devnet] = await Promise.all([
      startTestRedis({ appendOnly: true }),
      startTestDevnet({ wallet: { prefundCoins: 0 }, daemon: { coinbaseMaturityBlocks: 10 } }),
    ]);
    redis = await createRedisClient({ url: server.url }, silentLogger);
    // A wallet of small coinbase outputs, all spendable.
    devnet.control.mineBlocks(100);
    devnet.control.mineBlocks(10, FOREIGN);
    dir = mkdtempSync(join(tmpdir(), 'fpopt-'));
  });

  afterAll(async () => {
    redis?.disconnect();
    rmSync(dir, { recursive: true, force: true });
    await Promise.all([server?.stop(), devnet?.stop()]);
  });

  it('runs in this process (no socket at control.socketPath): sends the fusions, then reports them pending', async () => {
    const keyPrefix = uniquePrefix('cli-optimize');
    const config = join(dir, 'pool.json');
    const wallet = new URL(devnet.walletUrl);
    writeFileSync(
      config,
      JSON.stringify({
        log: { level: 'silent' },
        redis: { url: server.url, keyPrefix },
        wallet: { host: '127.0.0.1', port: Number(wallet.port), timeoutMs: 5000 },
        control: { socketPath: join(dir, 'absent.sock') },
        // Not by itself: only the operator's request sends anything here.
        payments: { payouts: { walletUpkeep: { enabled: false, maxFusionsPerRun: 3 } } },
      }),
    );
    const first = await runCliForTest(['wallet', 'optimize', '--config', config]);
    expect(first.code).toBe(0);
    const sent = first.stdout
      .split('\n')
      .filter((line) => line.startsWith('sent '))
      .map((line) => line.split(/\s+/)[1]);
    expect(sent).toHaveLength(3);
    expect(
      devnet.chain
        .mempool()
        .map((tx) => tx.hash)
        .sort(),
    ).toEqual([...sent].sort());
    expect(
      (await new WalletUpkeepStore({ keyPrefix }, { redis }).listFusions()).map((f) => f.trigger),
    ).toEqual(['operator', 'operator', 'operator']);

    const again = await runCliForTest(['wallet', 'optimize', '--config', config, '--standalone']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^pending: /);
    expect(devnet.chain.mempool()).toHaveLength(3);
  });
});
