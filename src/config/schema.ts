import { z } from 'zod';
import { apiOptionsFields, checkDashboardSwitch } from './api-schema.js';
import { controlConfigSchema } from './control-schema.js';
import { notificationConfigSchema } from './notifications-schema.js';
import { paymentsConfigSchema } from './payments-schema.js';

/**
 * The one configuration schema of fuego-pool. Every object is strict so that a misspelt key
 * fails at start instead of silently falling back to a default. Defaults live here and only here:
 * src/app maps the validated config to the options of each class, which have no defaults of their own.
 */

const host = z.string().min(1);
const port = z.number().int().min(1).max(65535);
const positiveInt = z.number().int().min(1);
const hex64 = z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex characters');

/** A section whose every key has a default: absent means "all defaults" (parsed from `{}`). */
function section<S extends z.ZodType<unknown, object>>(schema: S) {
  return schema.prefault({} as z.input<S>);
}

const logSchema = z.strictObject({
  level: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Lowest level written to the JSON log (pino); accepted shares are logged at debug.'),
});

const daemonSchema = z.strictObject({
  host: host.default('127.0.0.1').describe("fuegod's RPC address."),
  port: port.default(18180).describe("fuegod's RPC port."),
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(10_000)
    .describe('Timeout of one RPC call to fuegod.'),
  retries: z
    .number()
    .int()
    .min(0)
    .max(20)
    .default(3)
    .describe('Retries of an RPC call to fuegod that failed in a transient way (network error, timeout).'),
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
});

const redisEndpoint = z.strictObject({ host, port });

const redisSchema = z
  .strictObject({
    mode: z
      .enum(['standalone', 'sentinel', 'cluster'])
      .default('standalone')
      .describe('standalone: `url`; sentinel: `sentinels` + `masterName`; cluster: `nodes`.'),
    url: z
      .string()
      .min(1)
      .default('redis://127.0.0.1:6379')
      .describe('Standalone only. A password here is allowed but FUEGO_POOL_REDIS_PASSWORD is preferred.'),
    sentinels: z.array(redisEndpoint).default([]),
    masterName: z.string().min(1).optional(),
    nodes: z.array(redisEndpoint).default([]),
    commandTimeoutMs: z.number().int().min(100).max(60_000).optional(),
    connectTimeoutMs: z.number().int().min(100).max(60_000).optional(),
    replicaAcks: z
      .number()
      .int()
      .min(0)
      .max(16)
      .optional()
      .describe(
        'Replicas that must acknowledge each share batch before miners hear OK (WAIT). Defaults to 1 with Sentinel, where a failover would otherwise drop acknowledged shares; 0 elsewhere.',
      ),
    replicaAckTimeoutMs: z.number().int().min(10).max(60_000).default(1_000),

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
  refreshIntervalMs: z.number().int().min(1_000).max(3_600_000).default(30_000),
  retryDelayMs: z.number().int().min(10).max(60_000).default(1_000),
});

const stratumPortSchema = z.strictObject({
  port: z.number().int().min(0).max(65535).describe('0 takes any free port (tests).'),
  host: host
    .default('127.0.0.1')
    .describe('Listen address; 127.0.0.1 unless you mean to serve the world ("0.0.0.0", "::").'),
  difficulty: positiveInt,
  fixedDifficulty: z.boolean().default(false),
  solo: z.boolean().default(false),
  tls: z.boolean().default(false).describe('Serve TLS on this port with stratum.tls.certFile / keyFile.'),
});

const vardiffSchema = z
  .strictObject({
    targetShareTimeSec: z.number().min(1).max(3600).default(30),
    retargetIntervalSec: z.number().min(1).max(86_400).default(60),
    variancePercent: z.number().min(0).max(100).default(30),
    minDifficulty: positiveInt.default(100),
    maxDifficulty: positiveInt.default(1e12),
    maxChangeFactor: z.number().min(1.1).max(1000).default(4),
  })
  .refine((v) => v.retargetIntervalSec >= v.targetShareTimeSec, {
    message: 'must be at least targetShareTimeSec (a quiet miner would otherwise be pushed up)',
    path: ['retargetIntervalSec'],
  })
  .refine((v) => v.maxDifficulty >= v.minDifficulty, {
    message: 'must be at least minDifficulty',
    path: ['maxDifficulty'],
  });

const bansSchema = z.strictObject({
  enabled: z.boolean().default(true),
  windowMs: positiveInt.default(600_000),
  minShares: positiveInt.default(30),
  maxInvalidRatio: z.number().gt(0).max(1).default(0.25),
  firstBanSeconds: positiveInt.default(60),
  maxBanSeconds: positiveInt.default(3600),
  offenceMemoryMs: positiveInt.default(86_400_000),
  exemptIps: z.array(z.string()).default([]),
  ipv6AggregateBanThreshold: z
    .number()
    .int()
    .min(0)
    .default(3)
    .describe(
      'Automatic bans of this many distinct IPv6 peer networks (/64) of one aggregate network (stratum.limits.ipv6AggregatePrefixLength, /48) in force at once ban the aggregate; 0 turns it off.',
    ),
  ipv6AggregateBanSeconds: positiveInt
    .default(3600)
    .describe('How long an IPv6 aggregate network ban lasts.'),
});

const stratumLimitsSchema = z.strictObject({
  maxLineBytes: positiveInt.default(32 * 1024),
  maxPendingRequests: positiveInt.default(32),
  maxSendQueueBytes: positiveInt.default(1024 * 1024),
  loginTimeoutMs: positiveInt.default(30_000),
  idleTimeoutMs: positiveInt.default(900_000),
  writeTimeoutMs: positiveInt.default(30_000),
  maxConnectionsPerIp: positiveInt
    .default(256)
    .describe('This and maxConnections are caps for the host: stratum.processes children count together.'),
  maxConnections: positiveInt.default(100_000),
  maxConnectionsPerIpv6Aggregate: positiveInt
    .default(1024)
    .describe(
      'Connections from one IPv6 network of ipv6AggregatePrefixLength bits, all its /64 peers together (a home line often holds a /56, a tunnel broker hands out /48s).',
    ),
  ipv6AggregatePrefixLength: z
    .number()
    .int()
    .min(16)
    .max(64)
    .default(48)
    .describe(
      'IPv6 networks of this many bits are capped together (maxConnectionsPerIpv6Aggregate); should be shorter than stratum.ipv6PrefixLength.',
    ),
  maxLoginsPerConnection: positiveInt
    .default(4)
    .describe(
      'Logins on one connection (XMRig logs in once; a proxy may again): the one past it is refused (TOO_MANY_LOGINS) and the connection closes.',
    ),
  newAddressBurstPerIp: positiveInt
    .default(20)
    .describe(
      'Login addresses not seen before that one IP (an IPv6 peer: its ipv6PrefixLength network) may have checked at once (~1.4 ms of event loop each); past it LOGIN_RATE_LIMITED. Known addresses, valid or refused, cost nothing, so a farm behind one IP reconnecting is not slowed.',
    ),
  newAddressesPerIpPerMinute: positiveInt
    .default(30)
    .describe('How fast an IP earns back new-address checks after its burst (see newAddressBurstPerIp).'),
});

const stratumSchema = z
  .strictObject({
    ports: z
      .array(stratumPortSchema)
      .min(1)
      .prefault([{ port: 3333, difficulty: 5000 }]),
    tls: z
      .strictObject({
        certFile: z.string().min(1).describe('PEM certificate (chain) file of the TLS ports.'),
        keyFile: z.string().min(1).describe('PEM private key file of the TLS ports.'),
      })
      .optional()
      .describe('Certificate and key of the ports with `"tls": true` (required when one has it).'),
    processes: z
      .union([z.number().int().min(1).max(64), z.literal('auto')])
      .default(1)
      .describe(
        'Stratum processes on this host, sharing the ports (Node cluster); "auto" is one per core. With more than one, each child serves a share of the miners with node id `pool.nodeId + i`; the parent runs the other roles and shows the children as one.',
      ),
    jobsPerSession: z.number().int().min(1).max(64).default(4),
    staleGraceMs: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(2_000)
      .describe(
        'After a new block, shares on the previous template are still credited (never submitted) this long.',
      ),
    minLoginDifficulty: positiveInt.default(100),
    ipv6PrefixLength: z
      .number()
      .int()
      .min(32)
      .max(128)
      .default(64)
      .describe(
        'IPv6 peers are capped (limits.maxConnectionsPerIp) and banned by their network of this many bits: one subscriber usually holds a whole /64. 128 treats each address on its own.',
      ),
    vardiff: section(vardiffSchema),
    bans: section(bansSchema),
    limits: section(stratumLimitsSchema),
  })
  .refine((s) => !s.ports.some((p) => p.tls) || s.tls !== undefined, {
    message: 'a port has "tls": true, so stratum.tls.certFile and keyFile are required',
    path: ['tls'],
  })
  .refine(
    (s) => {
      const fixed = s.ports.filter((p) => p.port !== 0).map((p) => `${p.host}:${p.port}`);
      return new Set(fixed).size === fixed.length;
    },
    {
      message: 'two ports listen on the same host and port',
      path: ['ports'],
    },
  );

const storeSchema = z.strictObject({
  maxBatchSize: z.number().int().min(1).max(10_000).default(256),
  maxBatchDelayMs: z.number().int().min(0).max(1_000).default(2),
  streamMaxLength: z
    .number()
    .int()
    .min(10_000)
    .default(2_000_000)
    .describe(
      "Shares kept in the stream (approximate); must hold one PPLNS window's shares when a block is found (its window is fixed moments later; no trim happens while one waits).",
    ),
  maxPendingShares: z.number().int().min(100).default(50_000),
});

/**
 * Scale-out (DESIGN "Roles and scale"): the leader lock's lease and how often the leader renews it.
 * A crashed leader is replaced within about `leaderLockTtlMs + renewIntervalMs`; renewing at least
 * twice per lease leaves room for one lost renewal before the lease runs out. Each stratum
 * process's node id is held by the same kind of lease (src/cluster/node-id-claim.ts).
 */
const clusterSchema = z
  .strictObject({
    leaderLockTtlMs: z.number().int().min(1_000).max(120_000).default(5_000),
    renewIntervalMs: z.number().int().min(100).max(60_000).default(1_000),
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
    store: section(storeSchema),
    payments: section(paymentsConfigSchema),
    api: section(
      apiOptionsFields.extend({ enabled: z.boolean().default(true) }).superRefine(checkDashboardSwitch),
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
