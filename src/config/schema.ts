import { z } from 'zod';

/**
 * The one configuration schema of fuego-pool. Every object is strict so that a misspelt key
 * fails at start instead of silently falling back to a default. Defaults live here and only here.
 */

const host = z.string().min(1);
const port = z.number().int().min(1).max(65535);

const logSchema = z.strictObject({
  level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

const daemonSchema = z.strictObject({
  host: host.default('127.0.0.1'),
  port: port.default(18180),
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  retries: z.number().int().min(0).max(20).default(3),
});

const walletSchema = z.strictObject({
  host: host.default('127.0.0.1'),
  port: port.default(8070),
  timeoutMs: z.number().int().min(100).max(300_000).default(30_000),
});

const redisSchema = z.strictObject({
  url: z.string().min(1).default('redis://127.0.0.1:6379'),
  /** All keys of one pool share this prefix inside a `{hash tag}` so Lua scripts work on Redis Cluster. */
  keyPrefix: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/, 'lowercase letters, digits, "-" or "_", at most 32 characters')
    .default('fuego'),
});

const powSchema = z.strictObject({
  /** Which cn/upx2 implementation verifies shares; `auto` takes the fastest that passes the self-test. */
  implementation: z.enum(['auto', 'native', 'native-portable', 'typescript']).default('auto'),
  /** Verifier worker threads; 0 means one per available core. */
  workers: z.number().int().min(0).max(256).default(0),
  /** Jobs waiting for a worker beyond which `canAcceptWork()` says no. */
  maxQueuedJobs: z.number().int().min(1).max(1_000_000).default(4096),
});

export const configSchema = z.strictObject({
  network: z.enum(['mainnet', 'testnet', 'devnet']).default('mainnet'),
  log: logSchema.default(() => logSchema.parse({})),
  daemon: daemonSchema.default(() => daemonSchema.parse({})),
  wallet: walletSchema.default(() => walletSchema.parse({})),
  redis: redisSchema.default(() => redisSchema.parse({})),
  pow: powSchema.default(() => powSchema.parse({})),
});

export type PoolConfig = z.infer<typeof configSchema>;
export type PoolConfigInput = z.input<typeof configSchema>;
