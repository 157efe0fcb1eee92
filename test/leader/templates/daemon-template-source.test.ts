import { describe, expect, it } from 'vitest';
import {
  DaemonTemplateSource,
  type DaemonTemplateSourceOptions,
  type TemplateDaemon,
  TemplateSourceError,
} from '../../../src/leader/templates/daemon-template-source.js';
import { createLogger } from '../../../src/log/logger.js';
import type { ActiveTemplate, TemplateChange } from '../../../src/pool/template-source.js';
import type { BlockHeader, BlockTemplateResponse, DaemonInfo } from '../../../src/rpc/daemon-schemas.js';
import { RpcError } from '../../../src/rpc/rpc-error.js';
import { readJsonFixture } from '../../helpers/fixtures.js';

const logger = createLogger({ level: 'silent' });

/** The real daemon's template at `height` (test/fixtures/fuegod-rpc/templates). */
function realTemplate(height: number): BlockTemplateResponse {
  const file = readJsonFixture<{ response_raw: string }>(
    `fuegod-rpc/templates/gbt-h${String(height).padStart(4, '0')}-v9.json`,
  );
  return (JSON.parse(file.response_raw) as { result: BlockTemplateResponse }).result;
}

/** A scripted daemon: the test moves the tip, makes it busy or unreachable. */
class ScriptedDaemon implements TemplateDaemon {
  status = 'OK';
  down = false;
  currencyId = 'aa'.repeat(32);
  template = realTemplate(10);
  templateCalls = 0;
  headerCalls = 0;
  heightCalls = 0;
  heightDown = false;

  #check(): void {
    if (this.down) throw new RpcError('RPC_UNREACHABLE', 'connect ECONNREFUSED');
  }

  async getInfo(): Promise<DaemonInfo> {
    this.#check();
    return { status: this.status } as DaemonInfo;
  }

  async getCurrencyId(): Promise<string> {
    this.#check();
    return this.currencyId;
  }

  async getLastBlockHeader(): Promise<BlockHeader> {
    this.#check();
    this.headerCalls += 1;
    // The tip is the block the current template builds on (blob bytes 2..33).
    return { hash: this.template.blocktemplate_blob.slice(4, 68) } as BlockHeader;
  }

  async getHeight(): Promise<number> {
    this.#check();
    this.heightCalls += 1;
    if (this.heightDown) throw new RpcError('RPC_TIMEOUT', 'timed out');
    // The number of blocks: the template is for the next one, whose index is that number.
    return this.template.height;
  }

  async getBlockTemplate(): Promise<BlockTemplateResponse> {
    this.#check();
    this.templateCalls += 1;
    return this.template;
  }
}

function options(overrides: Partial<DaemonTemplateSourceOptions> = {}): DaemonTemplateSourceOptions {
  return {
    pollIntervalMs: 5,
    tipCheckIntervalMs: 0,
    refreshIntervalMs: 60_000,
    reserveSize: 8,
    walletAddress: 'fire...',
    expectedCurrencyId: 'aa'.repeat(32),
    parentStyle: 'pool',
    retryDelayMs: 5,
    ...overrides,
  };
}

async function until(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A source refreshing every 30 s on a clock the test moves with `advance`. */
function refreshingSource() {
  let now = 1_000_000;
  const daemon = new ScriptedDaemon();
  const source = new DaemonTemplateSource(options({ refreshIntervalMs: 30_000 }), {
    daemon,
    logger,
    clock: () => now,
  });
  return {
    daemon,
    source,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('DaemonTemplateSource', () => {
  it('waits while the daemon is busy, then serves the real template', async () => {
    const daemon = new ScriptedDaemon();
    daemon.status = 'BUSY';
    const source = new DaemonTemplateSource(options(), { daemon, logger });
    const started = source.start();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(source.current()).toBeUndefined();
    // What `fuego-pool status` and /health show while the pool waits for its first template.
    expect(source.status().lastError).toBe('daemon status is BUSY: still syncing (or starting)');
    daemon.status = 'OK';
    const first = await started;
    expect(first.height).toBe(10);
    expect(first.networkDifficulty).toBe(100_000n);
    expect(first.template.majorVersion).toBe(9);
    source.stop();
  });

  it('stop() ends the wait between attempts at once: a stopping pool does not sit out the backoff', async () => {
    const daemon = new ScriptedDaemon();
    daemon.down = true;
    const source = new DaemonTemplateSource(options({ retryDelayMs: 60_000 }), { daemon, logger });
    const started = source.start().catch((e: unknown) => e);
    await until(() => source.status().consecutiveFailures === 1);
    const stoppedAtMs = Date.now();
    source.stop();
    const error = await started;
    expect(Date.now() - stoppedAtMs).toBeLessThan(1_000);
    expect((error as TemplateSourceError).code).toBe('TEMPLATE_SOURCE_STOPPED');
  });

  it('refuses a daemon on another network, naming both currency ids', async () => {
    const daemon = new ScriptedDaemon();
    daemon.currencyId = 'bb'.repeat(32);
    const source = new DaemonTemplateSource(options(), { daemon, logger });
    const error = await source.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TemplateSourceError);
    expect((error as TemplateSourceError).code).toBe('WRONG_NETWORK');
  });

  it('announces a new block when the tip moves', async () => {
    const daemon = new ScriptedDaemon();
    const source = new DaemonTemplateSource(options(), { daemon, logger });
    const seen: Array<[number, TemplateChange]> = [];
    source.onTemplate((t: ActiveTemplate, change) => seen.push([t.height, change]));
    await source.start();
    daemon.template = realTemplate(11);
    await until(() => seen.length === 2);
    expect(seen).toEqual([
      [10, 'new-block'],
      [11, 'new-block'],
    ]);
    source.stop();
  });

  it('refreshes at the same height without announcing when no transaction changed', async () => {
    const { daemon, source, advance } = refreshingSource();
    const changes: TemplateChange[] = [];
    source.onTemplate((_t, change) => changes.push(change));
    await source.start();
    source.stop();
    advance(30_000);
    await source.pollOnce();
    expect(daemon.templateCalls).toBe(2);
    expect(changes).toEqual(['new-block']);
  });

  it('a template the daemon still gives at each refresh is not stale, however long the block takes', async () => {
    // Fuego's blocks come every 480 s on average, often with no transaction: the template stays
    // the same, and /health calls a template older than api.maxTemplateAgeMs (120 s) stale.
    const { daemon, source, advance } = refreshingSource();
    await source.start();
    source.stop();
    for (let step = 0; step < 10; step++) {
      advance(30_000);
      await source.pollOnce();
    }
    expect(daemon.templateCalls).toBe(11);
    expect(source.status().templateAgeMs).toBeLessThanOrEqual(30_000);
    // The daemon away: the age grows from the last answer.
    daemon.down = true;
    advance(200_000);
    await source.pollOnce().catch(() => undefined);
    expect(source.status().templateAgeMs).toBe(200_000);
  });

  it('a refresh that finds the tip moved since the header serves the new template at once, transactions or not', async () => {
    const { daemon, source, advance } = refreshingSource();
    const seen: Array<[number, TemplateChange]> = [];
    source.onTemplate((t, change) => seen.push([t.height, change]));
    await source.start();
    source.stop();
    // A block lands between the header (still the old tip) and the refresh's template.
    const oldTip = daemon.template.blocktemplate_blob.slice(4, 68);
    daemon.getLastBlockHeader = async () => ({ hash: oldTip }) as BlockHeader;
    daemon.template = realTemplate(11);
    advance(30_000);
    await source.pollOnce();
    expect(seen).toEqual([
      [10, 'new-block'],
      [11, 'new-block'],
    ]);
  });

  it('sees a new height between two slow polls and fetches the template at once', async () => {
    const daemon = new ScriptedDaemon();
    const source = new DaemonTemplateSource(options({ pollIntervalMs: 60_000, tipCheckIntervalMs: 5 }), {
      daemon,
      logger,
    });
    const seen: Array<[number, TemplateChange]> = [];
    source.onTemplate((t: ActiveTemplate, change) => seen.push([t.height, change]));
    await source.start();
    await until(() => daemon.heightCalls >= 3);
    // Same height: no poll beyond the one start() made.
    expect(daemon.headerCalls).toBe(1);
    expect(daemon.templateCalls).toBe(1);
    daemon.template = realTemplate(11);
    await until(() => seen.length === 2);
    expect(seen).toEqual([
      [10, 'new-block'],
      [11, 'new-block'],
    ]);
    expect(daemon.headerCalls).toBe(2);
    source.stop();
  });

  it('without the height check a new block waits for the next poll', async () => {
    const daemon = new ScriptedDaemon();
    const source = new DaemonTemplateSource(options({ pollIntervalMs: 60_000, tipCheckIntervalMs: 0 }), {
      daemon,
      logger,
    });
    await source.start();
    daemon.template = realTemplate(11);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(daemon.heightCalls).toBe(0);
    expect(source.current()?.height).toBe(10);
    source.stop();
  });

  it('a failing height check is not an outage: the polls go on and stay healthy', async () => {
    const daemon = new ScriptedDaemon();
    daemon.heightDown = true;
    const source = new DaemonTemplateSource(options({ tipCheckIntervalMs: 5 }), { daemon, logger });
    await source.start();
    await until(() => daemon.heightCalls >= 3);
    expect(source.status().consecutiveFailures).toBe(0);
    expect(source.status().healthy).toBe(true);
    daemon.template = realTemplate(11);
    await until(() => source.current()?.height === 11);
    source.stop();
  });

  it('keeps serving the last template through an outage and recovers by itself', async () => {
    const daemon = new ScriptedDaemon();
    const source = new DaemonTemplateSource(options(), { daemon, logger });
    const first = await source.start();
    daemon.down = true;
    await until(() => source.status().consecutiveFailures > 2);
    expect(source.current()).toBe(first);
    expect(source.status().healthy).toBe(false);
    daemon.down = false;
    daemon.template = realTemplate(12);
    await until(() => source.current()?.height === 12);
    expect(source.status().healthy).toBe(true);
    source.stop();
  });
});
