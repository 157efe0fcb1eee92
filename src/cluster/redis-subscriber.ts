import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';

/**
 * A second connection for SUBSCRIBE (a subscribed connection can send nothing else), with the
 * command client's address and reconnect policy. Unlike the command client it queues while
 * disconnected: SUBSCRIBE is idempotent, and ioredis re-subscribes by itself after a reconnect.
 */
export async function openSubscriber(redis: Redis, name: string, logger: Logger): Promise<Redis> {
  const subscriber = redis.duplicate({
    lazyConnect: true,
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    autoResubscribe: true,
    connectionName: name,
  });
  let failing = false;
  subscriber.on('error', (error: Error) => {
    // The command client already logs outages; one line per outage here is enough.
    if (!failing) logger.debug({ err: error, connection: name }, 'subscriber connection error');
    failing = true;
  });
  subscriber.on('ready', () => {
    failing = false;
  });
  await subscriber.connect();
  return subscriber;
}
