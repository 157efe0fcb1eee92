import { describe, expect, it } from 'vitest';
import { planStart } from '../../src/app/start-checks.js';
import { parseConfig } from '../../src/config/load-config.js';

const POOL_ADDRESS =
  'fireVHx639SLMhzmBoJ8drTXbVyv2eRG6A8aMLc1taTiRNwk8pnwXpBDUSjH1dT5fg7yVVZrKkvm31CmigAMdVDg7sgxJmAUNp';

/** A leader-only config (no TLS files, no stratum ports) with these notification targets. */
function leaderConfig(notifications: Record<string, unknown>) {
  return parseConfig({ roles: ['leader'], pool: { address: POOL_ADDRESS }, notifications });
}

/**
 * The notification targets' secrets come from the environment. PoolNode.start builds the notifier
 * only after the stratum role has its first template (ports and API already listening), so a
 * missing variable found there first leaves a pool with its daemon down waiting forever without a
 * word about it, and one with its daemon up serving miners for a moment before it stops. planStart
 * is where configuration problems must fail, before anything runs.
 */
describe('planStart: notification secrets', () => {
  it('refuses a Telegram target whose botTokenEnv is not set', async () => {
    const config = leaderConfig({ telegram: [{ botTokenEnv: 'TG_TOKEN', chatId: '-100123' }] });
    await expect(planStart(config, undefined, {})).rejects.toMatchObject({
      code: 'MISSING_SECRET',
      message: expect.stringContaining('notifications.telegram.0.botTokenEnv'),
    });
  });

  it('refuses a Telegram token that is not a bot token', async () => {
    const config = leaderConfig({ telegram: [{ botTokenEnv: 'TG_TOKEN', chatId: '-100123' }] });
    await expect(planStart(config, undefined, { TG_TOKEN: 'not a token' })).rejects.toMatchObject({
      code: 'INVALID_BOT_TOKEN',
    });
  });

  it('refuses a webhook whose secretEnv is not set', async () => {
    const config = leaderConfig({
      webhooks: [{ url: 'https://hooks.example.org/pool', secretEnv: 'HOOK_SECRET' }],
    });
    await expect(planStart(config, undefined, {})).rejects.toMatchObject({ code: 'MISSING_SECRET' });
  });

  it('accepts the targets when their variables are set', async () => {
    const config = leaderConfig({
      webhooks: [{ url: 'https://hooks.example.org/pool', secretEnv: 'HOOK_SECRET' }],
      telegram: [{ botTokenEnv: 'TG_TOKEN', chatId: '-100123' }],
    });
    const env = { HOOK_SECRET: 's3cret', TG_TOKEN: '123456:abcDEF_ghi' };
    await expect(planStart(config, undefined, env)).resolves.toMatchObject({ poolAddress: POOL_ADDRESS });
  });

  it('does not ask for the secrets in a process without the leader role (it sends nothing)', async () => {
    const config = parseConfig({
      roles: ['api'],
      notifications: { telegram: [{ botTokenEnv: 'TG_TOKEN', chatId: '-100123' }] },
    });
    await expect(planStart(config, undefined, {})).resolves.toMatchObject({ poolAddress: null });
  });
});

/**
 * The API listens at once, the stratum ports only with the first template: an API port that is
 * also a stratum port stopped the pool (PORT_IN_USE) only once the daemon had synced.
 */
describe('planStart: the API port and the stratum ports', () => {
  const clashing = {
    pool: { address: POOL_ADDRESS },
    api: { host: '0.0.0.0', port: 3333 },
    stratum: { ports: [{ port: 3333, host: '127.0.0.1', difficulty: 1000 }] },
  };

  it('refuses an API port that is a stratum port of the same process, naming both keys', async () => {
    await expect(planStart(parseConfig(clashing), undefined, {})).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/api\.port.*stratum\.ports\.0/s),
    });
  });

  it('lets processes on different hosts share the number (only one of the two roles here)', async () => {
    const apiOnly = parseConfig({ ...clashing, roles: ['api'] });
    await expect(planStart(apiOnly, undefined, {})).resolves.toMatchObject({ runApi: true });
    const stratumOnly = parseConfig({ ...clashing, roles: ['stratum'] });
    await expect(planStart(stratumOnly, undefined, {})).resolves.toMatchObject({ runApi: false });
    const apiOff = parseConfig({ ...clashing, api: { ...clashing.api, enabled: false } });
    await expect(planStart(apiOff, undefined, {})).resolves.toMatchObject({ runApi: false });
  });
});
