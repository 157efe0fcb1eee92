import { z } from 'zod';
import { apiOptionsFields, checkDashboardSwitch } from './api-schema.js';
import { controlConfigSchema } from './control-schema.js';
import { floodDropSchema } from './flood-drop-schema.js';
import { notificationConfigSchema } from './notifications-schema.js';
import { paymentsConfigSchema } from './payments-schema.js';
import { daemonTimeoutMs, host, integerIn, port, rpcTls, section } from './schema-parts.js';
import { stratumSchema } from './stratum-schema.js';

/**
 * The one configuration schema of fuego-pool. Every object is strict so that a misspelt key
 * fails at start instead of silently falling back to a default. Defaults live here and only here:
 * src/app maps the validated config to the options of each class, which have no defaults of their own.
 */

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex characters');

const logSchema = z.strictObject({
  level: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Lowest level written to the JSON log (pino); accepted shares are logged at debug.'),
});

const daemonSchema = z.strictObject({
  host: host.default('127.0.0.1').describe("fuegod's RPC address."),
  port: port.default(18180).describe("fuegod's RPC port."),
  timeoutMs: daemonTimeoutMs.describe('Timeout of one RPC call to fuegod.'),
  retries: z
    .number()
    .int()
    .min(0)
    .max(20)
    .default(3)
    .describe('Retries of an RPC call to fuegod that failed in a transient way (network error, timeout).'),
  tls: rpcTls
    .optional()
    .describe(
      'Ask fuegod over HTTPS, through a TLS proxy in front of it on its host (fuegod speaks plain HTTP): for a fuegod on another host, whose templates and blocks would otherwise cross the network in clear and could be answered by anyone on the path. Without fingerprint or caFile its certificate must be signed by one of the system CAs and name `host`. Absent: plain HTTP.',
    ),
});

const walletSchema = z.strictObject({
  host: host
    .default('127.0.0.1')
    .describe("walletd's RPC address (keep it on 127.0.0.1 or a private network)."),
  port: port.default(8070).describe("walletd's RPC port."),
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(300_000)
    .default(30_000)
    .describe('Timeout of one RPC call to walletd.'),
  rpcUser: z
    .string()
    .default('')
    .describe(
      "walletd's --rpc-user. With it, or with walletd's --rpc-password in the environment variable FUEGO_POOL_WALLET_RPC_PASSWORD (never in this file), every call to walletd carries them as HTTP Basic credentials; walletd answers 401 to a call without them. Empty, with the variable unset: none are sent.",
    ),
  tls: rpcTls
    .optional()
    .describe(
      'Ask walletd over HTTPS, through a TLS proxy in front of it on its host (walletd speaks plain HTTP): for a walletd on another host, whose credentials and payments would otherwise cross the network in clear. Without fingerprint or caFile its certificate must be signed by one of the system CAs and name `host`. Absent: plain HTTP.',
    ),
});

/**
 * A standalone Redis: a redis:// or rediss:// URL with a host, or the absolute path of a Unix
 * socket (`?db=N` allowed), which the client takes as its URL too. Not "host:port", which the
 * client would also take: the password of FUEGO_POOL_REDIS_PASSWORD has no place in it
 * (src/app/redis-connection.ts). The message never repeats the value: it may hold a password.
 */
const redisUrl = z.string().refine(
  (text) => {
    if (text.startsWith('/') && !text.startsWith('//')) return text.length > 1;
    try {
      const url = new URL(text);
      return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
    } catch {
      return false;
    }
  },
  {
    message:
      'must be a redis:// or rediss:// URL with a host (e.g. redis://127.0.0.1:6379/0) or the absolute path of a Unix socket',
  },
);

/** The client's timeouts; unset: its own default (src/store/redis-client.ts). */
const redisTimeoutMs = z.number().int().min(100).max(60_000).optional();

const redisEndpoint = z.strictObject({
  host: host.describe('Host name or IP address of the Redis node or sentinel.'),
  port: port.describe('Its TCP port.'),
});

const redisSchema = z
  .strictObject({
    mode: z
      .enum(['standalone', 'sentinel', 'cluster'])
      .default('standalone')
      .describe('standalone: `url`; sentinel: `sentinels` + `masterName`; cluster: `nodes`.'),
    url: redisUrl
      .default('redis://127.0.0.1:6379')
      .describe(
        'Standalone only: redis://host:port/db, rediss:// for TLS, or the absolute path of a Unix socket (/run/redis/redis.sock, ?db=N). A password here is allowed but FUEGO_POOL_REDIS_PASSWORD is preferred.',
      ),
    sentinels: z
      .array(redisEndpoint)
      .default([])
      .describe('Sentinel mode only: the sentinels asked where the master is (at least one).'),
    masterName: z
      .string()
      .min(1)
      .optional()
      .describe('Sentinel mode only: the name the sentinels monitor the master under (required there).'),
    nodes: z
      .array(redisEndpoint)
      .default([])
      .describe(
        'Cluster mode only: any reachable nodes of the cluster (at least one); the rest are discovered.',
      ),
    commandTimeoutMs: redisTimeoutMs.describe(
      'A Redis command (a share batch too) not answered within this fails instead of waiting; unset: 5000.',
    ),
    connectTimeoutMs: redisTimeoutMs.describe(
      'Timeout of connecting to Redis (and of sentinel queries and cluster slot refreshes); unset: 5000.',
    ),
    replicaAcks: z
      .number()
      .int()
      .min(0)
      .max(16)
      .optional()
      .describe(
        'Replicas that must acknowledge each share batch before miners hear OK (WAIT). Defaults to 1 with Sentinel, where a failover would otherwise drop acknowledged shares; 0 elsewhere.',
      ),
    replicaAckTimeoutMs: integerIn(10, 60_000)
      .default(1_000)
      .describe(
        'How long a WAIT for replicaAcks (share batches, payout batches) waits; fewer acknowledgements by then fail the write.',
      ),

    keyPrefix: z
      .string()
      .regex(/^[a-z0-9_-]{1,32}$/, 'lowercase letters, digits, "-" or "_", at most 32 characters')
      .default('fuego')
      .describe(
        'All keys of one pool share this prefix inside a `{hash tag}` so Lua scripts work on Redis Cluster.',
      ),
  })
  .refine((r) => r.mode !== 'sentinel' || (r.sentinels.length > 0 && r.masterName !== undefined), {
    message: 'mode "sentinel" needs redis.sentinels (at least one) and redis.masterName',
    path: ['sentinels'],
  })
  .refine((r) => r.mode !== 'cluster' || r.nodes.length > 0, {
    message: 'mode "cluster" needs redis.nodes (at least one)',
    path: ['nodes'],
  });

const powSchema = z.strictObject({
  implementation: z
    .enum(['auto', 'native', 'native-portable', 'typescript'])
    .default('auto')
    .describe(
      'Which cn/upx2 implementation verifies shares; `auto` takes the fastest that passes the self-test.',
    ),
  workers: z
    .number()
    .int()
    .min(0)
    .max(256)
    .default(0)
    .describe('Verifier worker threads; 0 means one per available core.'),
  maxQueuedJobs: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(4096)
    .describe(
      'Shares waiting for a verifier worker, shared fairly between peers (IP, or IPv6 /64): a peer holding its part (this divided by the peers waiting) has its submits held back; at twice this, the largest backlog makes room.',
    ),
  maxQueuedJobsPerPeer: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(256)
    .describe(
      "The most shares one peer may have waiting for a verifier worker, even when no other peer waits; beyond it the peer's submits are held back (not refused) until some are hashed. It bounds how much of a submit storm is read and queued in one go (256 is ~30 ms of hashing on two cores, far above an honest peer's backlog). Values above pow.maxQueuedJobs act as pow.maxQueuedJobs.",
    ),
});

const poolSchema = z.strictObject({
  name: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
      'letters, digits, ".", "_" or "-" (starting with a letter or digit), at most 64',
    )
    .default('fuego-pool')
    .describe(
      "The pool's name, shown by the API and the dashboard and written into the messages miners sign to set their payout threshold (so a signature made for one pool means nothing to another): make it unique to this pool, e.g. its domain. One word: no spaces, quotes or ':'.",
    ),
  address: z
    .string()
    .optional()
    .describe("Standard address the block rewards go to (the pool wallet's); required to start the pool."),
  nodeId: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(0)
    .describe('Unique per stratum node: it is the first two bytes of every extra nonce.'),
  parentStyle: z
    .enum(['pool', 'daemon-miner'])
    .default('pool')
    .describe('How the parent block of a job is filled in; see src/fuego/block-template.ts.'),
  expectedCurrencyId: hex64
    .optional()
    .describe('Genesis block id the daemon must report; defaults per `network` (devnet: not checked).'),
  reserveSize: z
    .number()
    .int()
    .min(7)
    .max(127)
    .default(8)
    .describe("`reserve_size` asked of getblocktemplate (usable bytes: one less, the daemon's off-by-one)."),
});

const templatesSchema = z.strictObject({
  pollIntervalMs: z
    .number()
    .int()
    .min(10)
    .max(60_000)
    .default(100)
    .describe('How often the tip is checked with getlastblockheader (the daemon has no push notification).'),
  tipCheckIntervalMs: z
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(25)
    .describe(
      'How often the chain height is asked (`/getheight`, cheaper) between those polls; a new height fetches the template at once, so a new block reaches miners this much sooner. 0 turns it off.',
    ),
  refreshIntervalMs: z
    .number()
    .int()
    .min(1_000)
    .max(3_600_000)
    .default(30_000)
    .describe(
      'At an unchanged tip a template is fetched this often to pick up new transactions (miners get new jobs only if they changed).',
    ),
  retryDelayMs: integerIn(10, 60_000)
    .default(1_000)
    .describe(
      'Wait between attempts while the daemon is unreachable or failing (instead of pollIntervalMs).',
    ),
});

const storeSchema = z.strictObject({
  maxBatchSize: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(256)
    .describe('Accepted shares written to Redis in one batch (one script call) at most.'),
  maxBatchDelayMs: z
    .number()
    .int()
    .min(0)
    .max(1_000)
    .default(2)
    .describe(
      "How long a batch's first share waits for company before it is written (miners hear OK after the write); 0: the end of the event-loop turn.",
    ),
  streamMaxLength: z
    .number()
    .int()
    .min(10_000)
    .default(2_000_000)
    .describe(
      "Shares kept in the stream (approximate); must hold one PPLNS window's shares when a block is found (its window is fixed moments later; no trim happens while one waits).",
    ),
  maxPendingShares: z
    .number()
    .int()
    .min(100)
    .default(50_000)
    .describe(
      'Shares queued or in flight to Redis beyond which new shares are refused (STORE_BACKLOG_FULL): bounds memory while Redis is slow or down.',
    ),
  maxWorkersPerMiner: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(500)
    .describe(
      'Worker names one miner has hashrate statistics for (each costs ~15 KB of Redis a day and a row in the API); shares under further names count under the worker "(others)".',
    ),
});

/**
 * Scale-out (DESIGN "Roles and scale"): the leader lock's lease and how often the leader renews it.
 * A crashed leader is replaced within about `leaderLockTtlMs + renewIntervalMs`; renewing at least
 * twice per lease leaves room for one lost renewal before the lease runs out. Each stratum
 * process's node id is held by the same kind of lease (src/cluster/node-id-claim.ts).
 */
const clusterSchema = z
  .strictObject({
    leaderLockTtlMs: z
      .number()
      .int()
      .min(1_000)
      .max(120_000)
      .default(5_000)
      .describe(
        "Lease of the leader lock (and of each stratum process's node id); a crashed leader is replaced within about this plus renewIntervalMs.",
      ),
    renewIntervalMs: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(1_000)
      .describe(
        'How often the holder renews its lease (and a standby tries to take it); at most half the lease.',
      ),
  })
  .refine((c) => c.renewIntervalMs * 2 <= c.leaderLockTtlMs, {
    message: 'must be at most half of leaderLockTtlMs (one lost renewal must not cost the lease)',
    path: ['renewIntervalMs'],
  });

/** What this process runs; `all` (the default) is every role in one process. */
export const poolRoleSchema = z.enum(['all', 'stratum', 'leader', 'api']);

export const configSchema = z
  .strictObject({
    network: z
      .enum(['mainnet', 'testnet', 'devnet'])
      .default('mainnet')
      .describe(
        'The Fuego network: picks the genesis id the daemon must report (devnet: none is checked, nor is a low payments.confirmDepth warned about).',
      ),
    log: section(logSchema),
    daemon: section(daemonSchema),
    wallet: section(walletSchema),
    redis: section(redisSchema),
    pow: section(powSchema),
    pool: section(poolSchema),
    templates: section(templatesSchema),
    stratum: section(stratumSchema),
    floodDrop: section(floodDropSchema).describe(
      'Peers that keep connecting to a stratum or API port while refused have their new connections dropped by the kernel for a while.',
    ),
    store: section(storeSchema),
    payments: section(paymentsConfigSchema),
    api: section(
      apiOptionsFields
        .extend({
          enabled: z
            .boolean()
            .default(true)
            .describe('Run the API (with the dashboard and live feed) in a process with the api role.'),
        })
        .superRefine(checkDashboardSwitch),
    ).describe('HTTP API + dashboard + WebSocket feed; the admin token comes from FUEGO_POOL_ADMIN_TOKEN.'),
    roles: z
      .array(poolRoleSchema)
      .min(1)
      .default(['all'])
      .describe('Roles of this process (`fuego-pool start --role` overrides): stratum, leader, api or all.'),
    cluster: section(clusterSchema),
    control: section(controlConfigSchema).describe(
      'Operator control socket (`fuego-pool status`, `ban`, `miners`, `payout --now`).',
    ),
    notifications: section(notificationConfigSchema).describe('Optional webhooks for blocks and payments.'),
  })
  // "auto" is checked when the count is known (StratumProcessGroup.start).
  .refine((c) => c.stratum.processes === 'auto' || c.pool.nodeId + c.stratum.processes - 1 <= 0xffff, {
    message: 'pool.nodeId + stratum.processes - 1 must be at most 65535 (each process takes a node id)',
    path: ['stratum', 'processes'],
  });

export type PoolConfig = z.infer<typeof configSchema>;
export type PoolConfigInput = z.input<typeof configSchema>;
