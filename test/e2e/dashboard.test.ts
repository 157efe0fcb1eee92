import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoStack, startDemoStack } from '../../src/app/demo-stack.js';
import { signMessage } from '../../src/devnet/wallet/message-signer.js';
import { createLogger } from '../../src/log/logger.js';
import { findPackageRoot } from '../../src/package-root.js';
import { thresholdMessage } from '../../src/pool/payouts/miner-threshold.js';
import { HashrateBucketWriter } from '../../src/store/hashrate/hashrate-buckets.js';
import { createPaymentKeys } from '../../src/store/payments/payment-keys.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { ensureXmrig } from '../../src/tools/xmrig.js';
import { DEFAULT_MAX_WORKERS_PER_MINER } from '../helpers/config-defaults.js';
import { csvColumn, parseCsv } from '../helpers/csv.js';
import { until } from '../helpers/until.js';
import { E2E_STACK_OPTIONS } from './e2e-stack-options.js';
import { XmrigRun } from './xmrig-runner.js';

/**
 * The web dashboard end to end: the demo stack (private Redis, devnet, pool, API serving
 * dashboard/), one real XMRig mining on the devnet, and the page in headless Chromium (the Debian
 * package, driven by playwright-core; no browser download). The page only ever talks to the
 * pool's 127.0.0.1 address: any other request is aborted.
 */
const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ROOT = findPackageRoot(import.meta.url);
const ARTIFACTS = join(ROOT, 'test-artifacts');
const WORKER = 'dash-rig';
/** A second worker of the miner whose last share is older than the offline time (10 min). */
const OFFLINE_WORKER = 'old-rig';
/** Explorer templates the demo pool is configured with; the page links, the test never follows them. */
const EXPLORER = {
  block: 'https://explorer.example/block/{hash}',
  transaction: 'https://explorer.example/tx/{hash}',
  address: 'https://explorer.example/address/{address}',
};

/** Three block credits and two payments in the miner's history (keys of the demo's `fuego` prefix). */
async function seedMinerRecords(redisUrl: string, address: string): Promise<void> {
  const redis = await createRedisClient({ url: redisUrl }, createLogger({ level: 'silent' }));
  const keys = createPaymentKeys('fuego');
  const now = Date.now();
  const multi = redis.multi();
  for (const [i, amount] of ['123456789', '1', '98765432101'].entries()) {
    multi.xadd(
      keys.history(address),
      '*',
      'r',
      'block-credit',
      'a',
      amount,
      'ref',
      'ab'.repeat(32),
      'b',
      '0',
      't',
      String(now - i),
    );
  }
  for (const [i, amount] of ['250000000', '12345'].entries()) {
    const payment = {
      batchId: `seed,"${i}"`,
      txHash: 'cd'.repeat(32),
      amountAtomic: amount,
      networkFeeAtomic: '80000',
      timestampMs: now - i,
    };
    multi.lpush(keys.payments(address), JSON.stringify(payment));
  }
  await multi.exec();
  redis.disconnect();
}

/** Twenty minutes of shares of OFFLINE_WORKER, the last one 15 minutes ago. */
async function seedOfflineWorker(redisUrl: string, address: string): Promise<void> {
  const redis = await createRedisClient({ url: redisUrl }, createLogger({ level: 'silent' }));
  const writer = new HashrateBucketWriter(
    { keyPrefix: 'fuego', maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
    { redis },
  );
  const now = Date.now();
  await writer.record(
    Array.from({ length: 20 }, (_, i) => ({
      address,
      worker: OFFLINE_WORKER,
      difficulty: 50_000,
      height: 1,
      timestampMs: now - (35 - i) * 60_000,
      solo: false,
      stale: false,
    })),
  );
  redis.disconnect();
}

/** Sum of a CSV column of atomic integers. */
function sumColumn(csv: string, name: string): bigint {
  return csvColumn(parseCsv(csv), name).reduce((total, value) => total + BigInt(value), 0n);
}

interface FormatModule {
  formatAtomic(atomic: unknown, decimals: number, minFraction?: number): string;
  formatHashrate(hashrate: unknown): string;
  formatBigDecimal(text: unknown): string;
  formatPartPercent(part: unknown, total: unknown): string;
}

interface ThresholdModule {
  coinsToAtomic(text: string, decimals: number): bigint | null;
  thresholdMessage(
    poolName: string,
    address: string,
    thresholdAtomic: bigint,
    timestampSec: number,
    decimals: number,
  ): string;
  signatureToSend(pasted: string): { signature: string; cut: boolean };
}

/** "1,234.5 kH/s" -> hashes per second (the page's own text, parsed back for the assertions). */
function parseShownHashrate(text: string): number | undefined {
  const match = /^([\d,.]+) (H|kH|MH|GH)\/s$/.exec(text.trim());
  if (!match) return undefined;
  const scale = { H: 1, kH: 1e3, MH: 1e6, GH: 1e9 }[match[2] as 'H' | 'kH' | 'MH' | 'GH'];
  return Number(match[1]!.replaceAll(',', '')) * scale;
}

describe('dashboard amount formatting (dashboard/js/format.js)', () => {
  let format: FormatModule;
  beforeAll(async () => {
    format = (await import(pathToFileURL(join(ROOT, 'dashboard/js/format.js')).href)) as FormatModule;
  });

  it('formats atomic amounts exactly, with BigInt', () => {
    expect(format.formatAtomic('0', 7)).toBe('0.00');
    expect(format.formatAtomic('1', 7)).toBe('0.0000001');
    expect(format.formatAtomic('10000000', 7)).toBe('1.00');
    expect(format.formatAtomic('123456789012345', 7)).toBe('12,345,678.9012345');
    expect(format.formatAtomic('18446744073709551615', 7)).toBe('1,844,674,407,370.9551615');
    expect(format.formatAtomic('-5', 7)).toBe('-0.0000005');
    expect(format.formatAtomic('25', 0)).toBe('25');
    for (const bad of ['1.5', '', 'abc', '1e9', 12 as unknown, null])
      expect(format.formatAtomic(bad, 7)).toBe('—');
    expect(format.formatBigDecimal('123456789012345678901234567890')).toBe(
      '123,456,789,012,345,678,901,234,567,890',
    );
    expect(format.formatHashrate(2413.7)).toBe('2.41 kH/s');
    expect(format.formatHashrate(0)).toBe('0.00 H/s');
  });

  it("shows a miner's part of the round as a percent, exactly, and no percent of an empty round", () => {
    expect(format.formatPartPercent('1', '3')).toBe('33.33 %');
    expect(format.formatPartPercent('12000', '21000')).toBe('57.14 %');
    expect(format.formatPartPercent('5', '5')).toBe('100.00 %');
    expect(format.formatPartPercent('0', '18446744073709551615')).toBe('0.00 %');
    expect(format.formatPartPercent('0', '0')).toBe('—');
    expect(format.formatPartPercent('1', 'x')).toBe('—');
  });

  it('loses no atomic unit: the text parses back to the same integer', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 96n), max: 2n ** 96n }),
        fc.integer({ min: 0, max: 12 }),
        (n, d) => {
          const text = format.formatAtomic(n.toString(), d, 0).replaceAll(',', '');
          const negative = text.startsWith('-');
          const [whole = '', fraction = ''] = (negative ? text.slice(1) : text).split('.');
          const back = BigInt(whole) * 10n ** BigInt(d) + BigInt(fraction.padEnd(d, '0') || '0');
          return (negative ? -back : back) === n;
        },
      ),
    );
  });
});

describe('dashboard payout threshold message (dashboard/js/payout-threshold.js)', () => {
  let threshold: ThresholdModule;
  beforeAll(async () => {
    const url = pathToFileURL(join(ROOT, 'dashboard/js/payout-threshold.js')).href;
    threshold = (await import(url)) as ThresholdModule;
  });

  it("makes exactly the pool's message text", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/),
        fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (poolName, thresholdAtomic, timestampSec) => {
          const address = 'fireAddress';
          expect(threshold.thresholdMessage(poolName, address, thresholdAtomic, timestampSec, 7)).toBe(
            thresholdMessage(poolName, { address, thresholdAtomic, timestampSec }),
          );
        },
      ),
    );
    expect(threshold.coinsToAtomic(' 2.5 ', 7)).toBe(25_000_000n);
    for (const bad of ['', '1.', '.5', '-1', '1e3', '0.00000001'])
      expect(threshold.coinsToAtomic(bad, 7)).toBeNull();
  });

  it('sends only the signature of what the wallet printed', () => {
    const signature = `Sig${'a'.repeat(88)}`;
    expect(threshold.signatureToSend(` ${signature}\n`)).toEqual({ signature, cut: false });
    expect(threshold.signatureToSend(`${signature.slice(0, 50)}\n${signature.slice(50)}XYZsecret`)).toEqual({
      signature,
      cut: true,
    });
  });
});

describe('dashboard in headless Chromium while XMRig mines on the devnet', () => {
  let stack: DemoStack | undefined;
  let miner: XmrigRun | undefined;
  let context: BrowserContext | undefined;
  let userDataDir: string | undefined;
  let page: Page;
  const problems: string[] = [];
  const consoleLog: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM_PATH)) {
      throw new Error(
        `Chromium not found at ${CHROMIUM_PATH}: the dashboard test needs the Debian package ` +
          '(apt-get install chromium, or run scripts/ensure-prereqs.sh as root).',
      );
    }
    const xmrigPath = await ensureXmrig();
    stack = await startDemoStack(
      {
        ...E2E_STACK_OPTIONS,
        poolOverrides: {
          // A 1 s feed tick so the live numbers visibly move within the test's time.
          api: { feedIntervalMs: 1_000, explorer: EXPLORER },
          stratum: { vardiff: { targetShareTimeSec: 2, retargetIntervalSec: 10, minDifficulty: 100 } },
        },
      },
      createLogger({ level: 'warn' }),
    );
    miner = await XmrigRun.start({
      xmrigPath,
      port: stack.stratumPort,
      login: stack.minerAddress,
      rigId: WORKER,
    });
    userDataDir = await mkdtemp(join(tmpdir(), 'fuego-chromium-'));
    // A persistent context on a fresh directory: Playwright's way to pass --user-data-dir.
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
      serviceWorkers: 'block',
      acceptDownloads: true,
    });
    const allowedOrigin = new URL(stack.apiUrl!).origin;
    await context.route('**/*', (route) =>
      new URL(route.request().url()).origin === allowedOrigin ? route.continue() : route.abort(),
    );
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      const line = `${message.type()}: ${message.text()}`;
      consoleLog.push(line);
      if (message.type() === 'error') problems.push(line);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  }, 60_000);

  afterAll(async () => {
    // The browser first: its live feed must not log a failed reconnect while the stack stops.
    await context?.close().catch(() => undefined);
    if (userDataDir !== undefined) await rm(userDataDir, { recursive: true, force: true });
    await miner?.stop();
    await stack?.stop();
  });

  it('shows how to connect, live hashrate, blocks, the network and a miner page', async () => {
    const textOf = async (selector: string) => (await page.locator(selector).textContent())?.trim() ?? '';
    const apiUrl = stack!.apiUrl!;
    const port = stack!.stratumPort;
    await mkdir(ARTIFACTS, { recursive: true });
    await page.goto(`${apiUrl}/`);

    // How to connect: the real stratum port and an XMRig command line for it.
    const command = page.locator(`#xmrig-commands pre[data-port="${port}"]`);
    await command.waitFor({ timeout: 15_000 });
    expect(await textOf(`#xmrig-commands pre[data-port="${port}"]`)).toBe(
      `xmrig -a cn/upx2 -o 127.0.0.1:${port} -u YOUR_XFG_ADDRESS -p x`,
    );
    expect(await textOf('#ports-body')).toContain(String(port));

    // The network panel, with the devnet's fee pool and HEAT endpoints.
    await until(
      async () => ((await textOf('#net-height')) !== '—' ? true : undefined),
      15_000,
      'the network panel',
    );
    expect(await textOf('#fee-pool')).toContain('Balance');
    expect(await textOf('#heat-deposits')).toContain('Deposits');

    // Pool hashrate: non-zero, then a different value brought by a later feed tick.
    const hashrate = page.locator('#pool-hashrate');
    const ticksOf = async () => Number(await hashrate.getAttribute('data-live-ticks'));
    const first = await until(
      async () => {
        const text = await textOf('#pool-hashrate');
        return (await ticksOf()) > 0 && (parseShownHashrate(text) ?? 0) > 0 ? text : undefined;
      },
      45_000,
      'a non-zero pool hashrate from the live feed',
    );
    const firstTicks = await ticksOf();
    await until(
      async () =>
        (await ticksOf()) > firstTicks && (await textOf('#pool-hashrate')) !== first ? true : undefined,
      20_000,
      `the pool hashrate to change from ${first}`,
    );
    expect(await page.locator('#feed-status').getAttribute('data-state')).toBe('live');

    // A block XMRig found shows up in the blocks table.
    await until(
      async () => ((await page.locator('#blocks-body .badge').count()) > 0 ? true : undefined),
      45_000,
      'a block in the blocks table',
    );
    expect(await textOf('#blocks-body')).toMatch(/pending|confirmed/);
    expect(Number((await textOf('#pool-blocks-found')).replaceAll(',', ''))).toBeGreaterThan(0);
    // Luck over the last blocks, as /api/stats computes it, and the blocks' explorer links.
    const getJson = async (path: string) => (await fetch(`${apiUrl}${path}`)).json();
    await until(
      async () => {
        const stats = (await getJson('/api/stats')) as {
          pool: { luck: { meanEffortPercent: number | null } };
        };
        const shown = await textOf('#pool-luck');
        const luck = stats.pool.luck.meanEffortPercent;
        return luck !== null && shown === `${luck.toFixed(1)} %` ? true : undefined;
      },
      20_000,
      'the luck card to show the API luck',
    );
    expect(await textOf('#pool-effort')).toMatch(/^[\d.]+ %$/);
    const blockLink = page.locator('#blocks-body a[data-explorer="block"]').first();
    await blockLink.waitFor({ timeout: 10_000 });
    expect(await blockLink.getAttribute('href')).toMatch(
      /^https:\/\/explorer\.example\/block\/[0-9a-f]{64}$/,
    );
    expect(await blockLink.getAttribute('rel')).toBe('noopener noreferrer');
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });

    // Records to export: the demo unlocks its first block after the test ends, so the miner's
    // history gets block credits and payments written as the store writes them (one batch id with
    // a comma and a quote, which the CSV must quote).
    await seedMinerRecords(stack!.redis.url, stack!.minerAddress);
    await seedOfflineWorker(stack!.redis.url, stack!.minerAddress);

    // The miner page, through the search box.
    await page.locator('#miner-address').fill(stack!.minerAddress);
    await page.locator('#miner-address').press('Enter');
    await page.locator('#miner-view').waitFor({ state: 'visible', timeout: 5_000 });
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#/miner/${stack!.minerAddress}`);
    expect(await textOf('#miner-address-text')).toBe(stack!.minerAddress);
    await until(
      async () => ((await textOf('#workers-body')).includes(WORKER) ? true : undefined),
      15_000,
      'the worker in the workers table',
    );
    const minerRate = page.locator('#miner-hashrate');
    await until(
      async () =>
        Number(await minerRate.getAttribute('data-live-ticks')) > 0 &&
        (parseShownHashrate(await textOf('#miner-hashrate')) ?? 0) > 0
          ? true
          : undefined,
      15_000,
      'a live miner hashrate',
    );
    // The workers: XMRig's online, the seeded one offline; a sparkline of each one's chart.
    await until(
      async () => ((await textOf('#workers-body')).includes(OFFLINE_WORKER) ? true : undefined),
      15_000,
      'the offline worker in the workers table',
    );
    const badgeOf = (worker: string) =>
      textOf(`#workers-body tr:has(td:first-child:text-is("${worker}")) .badge`);
    expect(await badgeOf(WORKER)).toBe('online');
    expect(await badgeOf(OFFLINE_WORKER)).toBe('offline');
    expect(await textOf('#miner-workers-count')).toBe('1 (+1 offline)');
    expect(await textOf('#workers-offline-after')).toBe('A worker is offline after 10 min without a share.');
    expect(await page.locator('#workers-body .worker-chart canvas').count()).toBe(2);
    const offlineChart = page.locator('#workers-body .worker-chart').nth(1);
    expect(await offlineChart.getAttribute('aria-label')).toBe(`${OFFLINE_WORKER} hashrate: latest 0.00 H/s`);
    await until(
      async () =>
        /^dash-rig hashrate: latest [\d.]+ [kM]?H\/s$/.test(
          (await page.locator('#workers-body .worker-chart').first().getAttribute('aria-label')) ?? '',
        ) &&
        /just now|\d+ s ago/.test(await textOf(`#workers-body tr:has(td:first-child:text-is("${WORKER}"))`))
          ? true
          : undefined,
      40_000,
      'the online worker with a chart and a recent share',
    );
    await page.locator('#miner-workers').screenshot({ path: join(ARTIFACTS, 'dashboard-workers.png') });
    expect(await textOf('#miner-unlocked')).toMatch(/^[\d,]+\.\d{2,7} XFG$/);
    expect(await textOf('#miner-pending')).toMatch(/^[\d,]+\.\d{2,7} XFG$/);
    expect(await textOf('#miner-hashes')).toMatch(/^[1-9][\d,]*$/);
    // The only miner: all of a round, or "—" right after a block closed it.
    expect(await textOf('#miner-round-share')).toMatch(/^(100\.00 %|—)$/);
    await until(
      async () =>
        (await page.locator('#miner-address-text a[data-explorer="address"]').getAttribute('href')) ===
        `https://explorer.example/address/${stack!.minerAddress}`
          ? true
          : undefined,
      40_000,
      'the miner address linked to the explorer',
    );

    const txLink = page.locator('#miner-payments-body a[data-explorer="transaction"]').first();
    await txLink.waitFor({ timeout: 10_000 });
    expect(await txLink.getAttribute('href')).toBe(`https://explorer.example/tx/${'cd'.repeat(32)}`);
    await page.locator('#miner-exports').screenshot({ path: join(ARTIFACTS, 'dashboard-exports.png') });

    // The export buttons: each downloaded CSV parses and sums to the API's JSON totals (retried:
    // a block may be credited between the two reads).
    for (const [kind, columns] of [
      ['payments', ['amount_atomic', 'network_fee_atomic']],
      ['rewards', ['amount_atomic']],
    ] as const) {
      await until(
        async () => {
          const [download] = await Promise.all([
            page.waitForEvent('download'),
            page.locator(`#export-${kind}-csv`).click(),
          ]);
          expect(download.suggestedFilename()).toMatch(new RegExp(`^fuego-${kind}-.+\\.csv$`));
          const csv = await readFile((await download.path())!, 'utf8');
          const json = (await getJson(`/api/miners/${stack!.minerAddress}/${kind}.json`)) as {
            rows: unknown[];
            totals: Record<string, string>;
          };
          const sums = columns.map((name) => sumColumn(csv, name).toString());
          const totals = columns.map((name) =>
            name === 'amount_atomic' ? json.totals['amountAtomic'] : json.totals['networkFeeAtomic'],
          );
          expect(json.rows.length).toBeGreaterThanOrEqual(2);
          return parseCsv(csv).length - 1 === json.rows.length && sums.join() === totals.join()
            ? true
            : undefined;
        },
        20_000,
        `the ${kind} CSV to sum to the API totals`,
      );
    }

    // The payout threshold: the pool minimum (0.1 XFG in the demo) until the miner signs another
    // with the wallet of the address (the devnet wallet holds its spend key).
    expect(await textOf('#threshold-current')).toBe('0.10 XFG (the pool minimum)');
    expect(await textOf('#threshold-min')).toBe('0.10 XFG');
    expect(await textOf('#threshold-max')).toBe('1,000.00 XFG');
    await page.locator('#threshold-coins').fill('2.5');
    await page.locator('#threshold-form button').click();
    const signCommand = await textOf('#threshold-command');
    const address = stack!.minerAddress;
    expect(signCommand).toMatch(
      new RegExp(`^sign_message payout-threshold:v1:fuego-pool:${address}:2\\.5000000:\\d+$`),
    );
    const { spendSecretKey } = stack!.devnet.wallet.getSpendKeys({ address }) as { spendSecretKey: string };
    const signature = signMessage(signCommand.slice('sign_message '.length), spendSecretKey);
    // Pasted as simplewallet prints it, with more of its memory after the signature: only the
    // signature is sent.
    await page.locator('#threshold-signature').fill(`${signature}7kQ2mXvT9bR4`);
    await page.locator('#payout-threshold').screenshot({ path: join(ARTIFACTS, 'dashboard-threshold.png') });
    await page.locator('#threshold-signature-form button').click();
    await until(
      async () =>
        (await page.locator('#threshold-result').getAttribute('data-state')) === 'saved' ? true : undefined,
      10_000,
      'the signed threshold to be saved',
    );
    expect(await page.locator('#threshold-signature').inputValue()).toBe(signature);
    await until(
      async () => ((await textOf('#threshold-current')) === '2.50 XFG (your own)' ? true : undefined),
      10_000,
      'the new threshold on the miner page',
    );
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-miner.png'), fullPage: true });

    // A daemon without the fee-pool and HEAT endpoints (real fuegod 1.9.3): the panel says so.
    const absent = { status: 'not-available', message: 'not available on this node' };
    await patchNetwork(page, { feePool: absent, heatDeposits: absent });
    await page.goto(`${apiUrl}/`);
    await until(
      async () => ((await textOf('#fee-pool')).includes('not available on this node') ? true : undefined),
      15_000,
      'the fee pool shown as not available',
    );
    expect(await textOf('#heat-deposits')).toBe('not available on this node');
    await page.unroute('**/api/stats');

    // Deposits of two kinds: each in its own asset, never one sum labelled XFG.
    const byType = {
      HEAT: { asset: 'HEAT', count: 2, amountAtomic: '2500000000' },
      burn: { asset: null, count: 1, amountAtomic: '1000000000' },
    };
    const feePool = {
      status: 'ok',
      balanceAtomic: '10000000',
      currentEpochSwapFeesAtomic: '0',
      totalCdLockedAtomic: '2500000000',
      currentEpoch: 1,
    };
    await patchNetwork(page, { feePool, heatDeposits: { status: 'ok', count: 3, byType } });
    await page.goto(`${apiUrl}/`);
    await until(
      async () => ((await textOf('#heat-deposits')).includes('HEAT deposits') ? true : undefined),
      15_000,
      'the deposits by kind',
    );
    const deposits = await textOf('#heat-deposits');
    expect(deposits).toContain('2 · 2,500,000,000 atomic units of HEAT');
    expect(deposits).toContain('burn deposits1 · 1,000,000,000 atomic units (asset not known to the pool)');
    expect(deposits).not.toContain('XFG');
    expect(deposits).not.toContain('Total');
    // The fee pool's CD principal is HEAT too.
    expect(await textOf('#fee-pool')).toContain('CD locked2,500,000,000 atomic units of HEAT');
    await page.unroute('**/api/stats');

    expect(problems, consoleLog.join('\n')).toEqual([]);
  }, 90_000);
});

/** Serves /api/stats with `patch` over its network section, as another daemon would report it. */
async function patchNetwork(page: Page, patch: Record<string, unknown>): Promise<void> {
  await page.route('**/api/stats', async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { network: Record<string, unknown> | null };
    if (body.network !== null) body.network = { ...body.network, ...patch };
    await route.fulfill({ response, json: body });
  });
}
