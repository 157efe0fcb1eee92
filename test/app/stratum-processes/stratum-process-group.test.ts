import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { childExecArgv } from '../../../src/app/stratum-processes/child-config.js';
import { StratumProcessGroup } from '../../../src/app/stratum-processes/stratum-process-group.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { createLogger } from '../../../src/log/logger.js';
import { manualBan } from '../../../src/pool/ban-registry.js';
import { type RpcCall, RpcCallFanout, type RpcService } from '../../../src/rpc/rpc-call-observer.js';
import { isRunning } from '../../helpers/processes.js';
import { until } from '../../helpers/until.js';
import { FakeBanRegistry } from '../../pool/pool-fakes.js';

/**
 * The process group's own rules, with a fake child (test/fixtures/stratum-processes) instead of a
 * pool: start timeout (for the boot only), restarts with a growing delay, stop. The real child is in
 * test/e2e/stratum-processes.test.ts.
 */
const FAKE_CHILD = new URL('../../fixtures/stratum-processes/fake-stratum-child.mjs', import.meta.url);
const logger = createLogger({ level: 'silent' });
const config = parseConfig({ pool: { nodeId: 3 }, stratum: { processes: 2 } });
const groups: StratumProcessGroup[] = [];
/** A fake child boots in well under this, also on a loaded machine (2 s seen on a busy 2-core box). */
const BOOT_TIMEOUT_MS = 5_000;
/** How long a test waits for what must happen (boots, restarts, exits); only a failing test waits it out. */
const EVENT_WAIT_MS = 30_000;

afterEach(async () => {
  await Promise.all(groups.splice(0).map((group) => group.stop()));
  delete process.env['FAKE_STRATUM_CHILD'];
});

describe('stratum process group', () => {
  it('starts every child with its node id and stops them all', async () => {
    process.env['FAKE_STRATUM_CHILD'] = 'serve';
    const group = await StratumProcessGroup.start(
      { config, processes: 2 },
      { logger, entry: FAKE_CHILD, bans: new FakeBanRegistry() },
    );
    groups.push(group);
    const children = group.children();
    expect(children.map((c) => [c.index, c.nodeId, c.state])).toEqual([
      [0, 3, 'serving'],
      [1, 4, 'serving'],
    ]);
    expect(group.listening()).toEqual([{ configuredPort: 0, port: 40000, host: '127.0.0.1', tls: false }]);
    await group.stop();
    expect(children.every((c) => !isRunning(c.pid!))).toBe(true);
    expect(group.children().map((c) => c.state)).toEqual(['stopped', 'stopped']);
  });

  it("runs the children with the configured young generation, after the parent's own node flags", async () => {
    process.env['FAKE_STRATUM_CHILD'] = 'serve';
    const small = parseConfig({ pool: { nodeId: 3 }, stratum: { processes: 2, childSemiSpaceMb: 2 } });
    const group = await StratumProcessGroup.start(
      { config: small, processes: 2 },
      { logger, entry: FAKE_CHILD, bans: new FakeBanRegistry() },
    );
    groups.push(group);
    for (const child of group.children()) {
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      expect(argv.at(argv.indexOf('--max-semi-space-size=2') - 1)).toBe(
        process.execArgv.at(-1) ?? process.execPath,
      );
    }
    expect(childExecArgv(['--inspect'], 0)).toEqual(['--inspect']);
  });

  it('fails the start when a child has not booted in time, and leaves no child running', async () => {
    process.env['FAKE_STRATUM_CHILD'] = 'never-ready';
    const pids: number[] = [];
    const start = StratumProcessGroup.start(
      { config, processes: 2, startTimeoutMs: 500 },
      {
        logger: createLogger({ level: 'info' }, { write: (line: string) => collectPid(line, pids) }),
        entry: FAKE_CHILD,
        bans: new FakeBanRegistry(),
      },
    );
    await expect(start).rejects.toMatchObject({
      code: 'CHILD_START_FAILED',
      message: expect.stringMatching(/^stratum process [01] not booted after 500 ms$/),
    });
    expect(pids).toHaveLength(2);
    await until(
      () => (pids.every((pid) => !isRunning(pid)) ? true : undefined),
      EVENT_WAIT_MS,
      'the children to exit',
    );
  });

  it('lets a booted child wait for its first template past the start timeout, and serves with it', async () => {
    process.env['FAKE_STRATUM_CHILD'] = 'booted';
    const group = new StratumProcessGroup(
      { config, processes: 2, startTimeoutMs: BOOT_TIMEOUT_MS },
      { logger, entry: FAKE_CHILD, bans: new FakeBanRegistry() },
    );
    groups.push(group);
    let outcome = 'pending';
    // serve() forks the children, and so arms their start timeouts, before it returns.
    const servedAtMs = Date.now();
    const serving = group.serve().then(
      () => {
        outcome = 'started';
      },
      (error: unknown) => {
        outcome = (error as { code?: string }).code ?? String(error);
      },
    );
    await until(
      () => (group.children().every((c) => c.state === 'waiting-for-template') ? true : undefined),
      EVENT_WAIT_MS,
      'both children booted',
    );
    const pids = group.children().map((c) => c.pid);
    await sleepUntil(servedAtMs + BOOT_TIMEOUT_MS + 200);
    expect(outcome).toBe('pending');
    expect(group.children().map((c) => [c.state, c.pid])).toEqual([
      ['waiting-for-template', pids[0]],
      ['waiting-for-template', pids[1]],
    ]);
    // The template comes.
    for (const pid of pids) process.kill(pid!, 'SIGUSR2');
    await serving;
    expect(outcome).toBe('started');
    expect(group.children().map((c) => [c.state, c.pid, c.restarts])).toEqual([
      ['serving', pids[0], 0],
      ['serving', pids[1], 0],
    ]);
  });

  it('does not kill a child started again while there is no template: once booted it waits', async () => {
    process.env['FAKE_STRATUM_CHILD'] = 'crash';
    const errors: string[] = [];
    // Each child dies 100 ms after it served; started again, it finds no template (booted only).
    // The mode changes at the first death, not once start() resolves: on a loaded machine one
    // child can serve, die and be started again (crashing again) before the other one serves.
    const onError = (msg: string) => {
      errors.push(msg);
      process.env['FAKE_STRATUM_CHILD'] = 'booted';
    };
    const group = await StratumProcessGroup.start(
      { config, processes: 2, startTimeoutMs: BOOT_TIMEOUT_MS, restartDelayMs: 100 },
      {
        logger: createLogger({ level: 'error' }, { write: (line: string) => onError(JSON.parse(line).msg) }),
        entry: FAKE_CHILD,
        bans: new FakeBanRegistry(),
      },
    );
    groups.push(group);
    const waiting = await until(
      () => {
        const children = group.children();
        return children.every((c) => c.restarts === 1 && c.state === 'waiting-for-template')
          ? children
          : undefined;
      },
      EVENT_WAIT_MS,
      'both children started again and waiting',
    );
    await new Promise((resolve) => setTimeout(resolve, BOOT_TIMEOUT_MS + 200));
    expect(group.children()).toEqual(waiting);
    expect(waiting.every((c) => isRunning(c.pid!))).toBe(true);
    // A stop during that wait ends the restart quietly (only the two deaths were errors).
    await group.stop();
    expect(errors).toEqual([
      'stratum process died; its miners reconnect to the others',
      'stratum process died; its miners reconnect to the others',
    ]);
  });

  it('stops a child forked just before the stop at once: the stop sent before it listened is not lost', async () => {
    // A fatal error right after the fork (e.g. the leader's daemon is on another network) stops
    // the group while the children are still loading: their first message is 'waiting'.
    process.env['FAKE_STRATUM_CHILD'] = 'serve';
    const messages: string[] = [];
    const abandon = Promise.reject(new Error('fatal leader error'));
    abandon.catch(() => undefined);
    const startedAtMs = Date.now();
    await expect(
      StratumProcessGroup.start(
        { config, processes: 2, stopTimeoutMs: 15_000 },
        {
          logger: createLogger(
            { level: 'info' },
            { write: (line: string) => messages.push(JSON.parse(line).msg) },
          ),
          entry: FAKE_CHILD,
          bans: new FakeBanRegistry(),
          abandon,
        },
      ),
    ).rejects.toThrow('fatal leader error');
    // Not started (and serving miners) after the stop, then killed when stopTimeoutMs ran out.
    expect(messages).not.toContain('stratum process did not stop; killing it');
    expect(Date.now() - startedAtMs).toBeLessThan(10_000);
  });

  it('starts a child that dies again, waiting longer after each quick death', async () => {
    process.env['FAKE_STRATUM_CHILD'] = 'crash';
    const delays: Array<{ child: number; ms: number }> = [];
    const group = await StratumProcessGroup.start(
      { config, processes: 2, restartDelayMs: 100, maxRestartDelayMs: 400 },
      {
        logger: createLogger({ level: 'info' }, { write: (line: string) => collectDelay(line, delays) }),
        entry: FAKE_CHILD,
        bans: new FakeBanRegistry(),
      },
    );
    groups.push(group);
    await until(
      () => (group.children().every((c) => c.restarts >= 3) ? true : undefined),
      EVENT_WAIT_MS,
      'three restarts of each child',
    );
    // Per child: 100, 200, 400, then capped at 400 ms.
    for (const child of [0, 1]) {
      const own = delays.filter((d) => d.child === child).map((d) => d.ms);
      expect(own.slice(0, 3)).toEqual([100, 200, 400]);
      expect(Math.max(...own)).toBe(400);
    }
    // A dead child's counters stay in the sum (never back, which Prometheus would count again);
    // its gauges leave it. Each fake start reported 5 accepted shares and one session.
    const starts = group.children().reduce((sum, c) => sum + c.restarts + 1, 0);
    const stats = group.stats();
    expect(stats.backend.sharesAccepted).toBeGreaterThanOrEqual(5 * (starts - 2));
    expect(stats.backend.sharesAccepted).toBeLessThanOrEqual(5 * starts);
    expect(stats.backend.sessions).toBeLessThanOrEqual(2);
    await group.stop();
    expect(group.children().every((c) => c.state === 'stopped')).toBe(true);
    const after = group.stats().backend;
    expect(after.sessions).toBe(0);
    expect(after.sharesAccepted).toBeGreaterThanOrEqual(stats.backend.sharesAccepted);
  });

  it("gives a child that starts the bans in force and every child each new one, and the registry a child's ban", async () => {
    process.env['FAKE_STRATUM_CHILD'] = 'ban';
    const bans = new FakeBanRegistry();
    await bans.ban(manualBan('203.0.113.1', 60, 'operator', Date.now()));
    const group = await StratumProcessGroup.start(
      { config, processes: 2 },
      { logger, entry: FAKE_CHILD, bans },
    );
    groups.push(group);
    // Each child decided a ban: the registry has it, and every child hears of it.
    await until(() => (bans.banned.length === 3 ? true : undefined), EVENT_WAIT_MS, "the children's bans");
    expect(
      bans.banned
        .slice(1)
        .map((b) => b.ip)
        .sort(),
    ).toEqual(['10.9.9.0', '10.9.9.1']);
    // Three IPs banned in each of the two children (added up as bansIssued by the fake).
    await until(
      () => (group.stats().backend.bansIssued === 6 ? true : undefined),
      EVENT_WAIT_MS,
      'every ban everywhere',
    );
    await bans.ban(manualBan('2001:db8:4:4::9', 60, 'operator', Date.now()));
    await until(
      () => (group.stats().backend.bansIssued === 8 ? true : undefined),
      EVENT_WAIT_MS,
      'the new ban',
    );
    expect((await bans.list()).map((b) => b.ip)).toContain('2001:db8:4:4::/64');
  });

  it("replays each child's RPC calls into the pool's fanout, and ignores malformed ones without stopping", async () => {
    process.env['FAKE_STRATUM_CHILD'] = 'rpc';
    const rpcCalls = new RpcCallFanout();
    const heard: Array<{ service: RpcService; call: RpcCall }> = [];
    rpcCalls.listen((service, call) => heard.push({ service, call }));
    const warnings: string[] = [];
    const modules = {
      logger: createLogger(
        { level: 'warn' },
        { write: (line: string) => warnings.push(JSON.parse(line).msg) },
      ),
      entry: FAKE_CHILD,
      bans: new FakeBanRegistry(),
      rpcCalls,
    };
    const group = await StratumProcessGroup.start({ config, processes: 2 }, modules);
    groups.push(group);
    // Each child reports two good calls, the last one after its six malformed ones.
    await until(() => (heard.length === 4 ? true : undefined), EVENT_WAIT_MS, "the children's RPC calls");
    const submit = { service: 'daemon', call: { method: 'submitblock', durationMs: 12.5 } };
    const timeout = {
      service: 'daemon',
      call: { method: '/get_alias', durationMs: 2000, errorCode: 'RPC_TIMEOUT' },
    };
    expect(heard.filter((h) => h.call.method === 'submitblock')).toEqual([submit, submit]);
    expect(heard.filter((h) => h.call.method === '/get_alias')).toEqual([timeout, timeout]);
    expect(warnings).toEqual(Array(12).fill('unknown message from a stratum process ignored'));
    expect(group.children().map((c) => c.state)).toEqual(['serving', 'serving']);
  });

  it('lifts a ban the operator lifted while a child waited for its first template in that child too', async () => {
    process.env['FAKE_STRATUM_CHILD'] = 'booted';
    const bans = new FakeBanRegistry();
    await bans.ban(manualBan('203.0.113.1', 600, 'operator', Date.now()));
    const group = new StratumProcessGroup(
      { config, processes: 2, startTimeoutMs: BOOT_TIMEOUT_MS },
      { logger, entry: FAKE_CHILD, bans },
    );
    groups.push(group);
    const serving = group.serve();
    // Both children hold the ban (given at start) and wait for a template, as after a restart
    // while the daemon is away (which can last as long as the daemon does).
    await until(
      () =>
        group.children().every((c) => c.state === 'waiting-for-template') &&
        group.stats().backend.bansIssued === 2
          ? true
          : undefined,
      EVENT_WAIT_MS,
      'both children booted, holding the ban',
    );
    expect(await bans.unban('203.0.113.1')).toBe(true);
    // The template comes.
    for (const child of group.children()) process.kill(child.pid!, 'SIGUSR2');
    await serving;
    // Each child reports the bans it holds (as bansIssued): none is left.
    await until(
      () => (group.stats().backend.bansIssued === 0 ? true : undefined),
      EVENT_WAIT_MS,
      'the unban in both children',
    );
  });
});

function sleepUntil(atMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, atMs - Date.now())));
}

function collectPid(line: string, pids: number[]): void {
  const entry = JSON.parse(line) as { msg: string; pid?: number };
  if (entry.msg === 'stratum process starting' && entry.pid !== undefined) pids.push(entry.pid);
}

function collectDelay(line: string, delays: Array<{ child: number; ms: number }>): void {
  const entry = JSON.parse(line) as { msg: string; child?: number; restartInMs?: number };
  if (entry.restartInMs !== undefined && entry.child !== undefined) {
    delays.push({ child: entry.child, ms: entry.restartInMs });
  }
}
