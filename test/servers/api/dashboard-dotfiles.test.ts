import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { errorReplySchema } from '../../../src/servers/api/api-schemas.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi } from './api-fixtures.js';

/*
 * An operator who serves their own front end (api.staticDir) often points it at a git checkout
 * of it, with `.git/` and maybe a `.env` beside index.html: none of that is for the public.
 */
describe('a dashboard folder (api.staticDir) with dotfiles', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('serves its pages but never a file or folder whose name starts with a dot (404)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fuego-dash-dot-'));
    await writeFile(join(dir, 'index.html'), '<h1>dashboard</h1>');
    await writeFile(join(dir, '.env'), 'ANALYTICS_TOKEN=secret');
    await mkdir(join(dir, '.git'));
    await writeFile(join(dir, '.git', 'config'), '[remote "origin"]\n\turl = https://user:token@example');
    const { app } = await buildTestApi({ redis, keyPrefix: 'dash-dotfiles', options: { staticDir: dir } });
    try {
      expect((await app.inject({ url: '/' })).statusCode).toBe(200);
      for (const url of ['/.env', '/.git/config', '/.git/', '/%2eenv', '/x/../.env']) {
        const reply = await app.inject({ url });
        expect(reply.statusCode, url).toBe(404);
        expect(reply.payload, url).not.toContain('secret');
        expect(reply.payload, url).not.toContain('token');
        expect(errorReplySchema.parse(reply.json()).error.code, url).toBe('NOT_FOUND');
      }
    } finally {
      await app.close();
      await rm(dir, { recursive: true });
    }
  });
});
