import type { FastifyInstance } from 'fastify';
import { LIVE_FEED_PATH } from '../../../src/servers/api/live-feed.js';

/** Polls `predicate` every 10 ms; throws after `timeoutMs`. */
export async function until(predicate: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Listens on a free loopback port; the live feed's ws:// URL. */
export async function listenForFeed(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `ws://127.0.0.1:${address.port}${LIVE_FEED_PATH}`;
}
