import { describe, expect, it } from 'vitest';
import { childConfig, childExecArgv } from '../../../src/app/stratum-processes/child-config.js';
import { parseConfig } from '../../../src/config/load-config.js';

describe('the config of a stratum child process', () => {
  const parent = parseConfig({
    pool: { nodeId: 10 },
    stratum: { processes: 3, ports: [{ port: 3333, difficulty: 500 }] },
    notifications: {
      webhooks: [{ url: 'http://127.0.0.1:9/hook', events: ['block-found'] }],
      discord: [{ url: 'http://127.0.0.1:9/discord' }],
      telegram: [{ botTokenEnv: 'TELEGRAM_BOT_TOKEN', chatId: '-100123' }],
    },
  });

  it('runs only the stratum role, with node id pool.nodeId + index and the same ports', () => {
    const child = childConfig(parent, 2, 3, 6);
    expect(child.roles).toEqual(['stratum']);
    expect(child.pool.nodeId).toBe(12);
    expect(child.stratum.ports).toEqual(parent.stratum.ports);
    expect(child.stratum.processes).toBe(1);
    // The parent serves the API, the control socket and the webhooks.
    expect(child.api.enabled).toBe(false);
    expect(child.control.enabled).toBe(false);
    expect(child.notifications.webhooks).toEqual([]);
    expect(child.notifications).not.toHaveProperty('discord');
    expect(child.notifications).not.toHaveProperty('telegram');
    // What it gets is a valid config in its own right.
    expect(parseConfig(child)).toEqual(child);
  });

  it('shares the cores out when pow.workers is 0 (one per core), and keeps an explicit count', () => {
    expect(childConfig(parent, 0, 3, 6).pow.workers).toBe(2);
    expect(childConfig(parent, 0, 3, 2).pow.workers).toBe(1);
    const fixed = parseConfig({ pow: { workers: 3 }, stratum: { processes: 2 } });
    expect(childConfig(fixed, 1, 2, 2).pow.workers).toBe(3);
  });

  it("gives a child an 8 MB young generation by default, whatever the parent's own", () => {
    // A job push leaves short-lived garbage per miner: with 1 MB, scavenges were 7.5% of the
    // children's samples in a push to 100,000 miners, 3.9% with 4 MB, and 8 MB took less pool CPU
    // per miner per push than 4 MB (README, sessions of 2026-11-29, thirteenth and fourteenth).
    const semiSpaceMb = parseConfig({ stratum: { processes: 2 } }).stratum.childSemiSpaceMb;
    const argv = childExecArgv(['--max-semi-space-size=2'], semiSpaceMb);
    expect(argv.at(-1)).toBe('--max-semi-space-size=8');
  });
});
