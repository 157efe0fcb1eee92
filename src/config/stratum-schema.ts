import { z } from 'zod';
import { listenersClash } from './listen-clash.js';
import { host, ipText, positiveInt, section, timerMs } from './schema-parts.js';

/**
 * The `stratum` config section: the listening ports, vardiff, automatic bans and the limits on
 * what one connection or peer can make the pool hold (src/app/stratum-options.ts maps it).
 */

const stratumPortSchema = z.strictObject({
  port: z.number().int().min(0).max(65535).describe('0 takes any free port (tests).'),
  host: host
    .default('127.0.0.1')
    .describe('Listen address; 127.0.0.1 unless you mean to serve the world ("0.0.0.0", "::").'),
  difficulty: positiveInt.describe(
    'Start difficulty of miners on this port (vardiff moves it within stratum.vardiff.minDifficulty/maxDifficulty).',
  ),
  fixedDifficulty: z
    .boolean()
    .default(false)
    .describe('Keep every miner on this port at `difficulty` (no vardiff).'),
  solo: z
    .boolean()
    .default(false)
    .describe('Every miner on this port mines solo, as if its login started with `solo:`.'),
  tls: z.boolean().default(false).describe('Serve TLS on this port with stratum.tls.certFile / keyFile.'),
});

const vardiffSchema = z
  .strictObject({
    targetShareTimeSec: z
      .number()
      .min(1)
      .max(3600)
      .default(30)
      .describe('Seconds between shares vardiff aims for, per connection.'),
    retargetIntervalSec: z
      .number()
      .min(1)
      .max(86_400)
      .default(60)
      .describe(
        "The shortest window a connection's difficulty is judged on (but 32 shares' worth within it, a miner far too fast, are acted on at once). A window that shows no clear deviation yet (shares arrive at random) grows until it does, or until it holds enough shares to show the miner within variancePercent.",
      ),
    variancePercent: z
      .number()
      .min(0)
      .max(100)
      .default(30)
      .describe('Deviation from targetShareTimeSec, in percent, tolerated without a retarget.'),
    minDifficulty: positiveInt.default(100).describe('Lowest difficulty vardiff sets.'),
    maxDifficulty: positiveInt
      .default(1e12)
      .describe('Highest difficulty vardiff sets; also caps a `+DIFF` asked in the login.'),
    maxChangeFactor: z
      .number()
      .min(1.1)
      .max(1000)
      .default(4)
      .describe('Largest factor one retarget moves the difficulty by, up or down.'),
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
  enabled: z
    .boolean()
    .default(true)
    .describe('Ban IPs that send too many bad shares; false: only manual bans (`fuego-pool ban`).'),
  windowMs: positiveInt
    .default(600_000)
    .describe("Sliding window over which an IP's share of bad submits is computed."),
  minShares: positiveInt
    .default(30)
    .describe('Submits an IP must have made in the window before it can be banned.'),
  maxInvalidRatio: z
    .number()
    .gt(0)
    .max(1)
    .default(0.25)
    .describe(
      'Weighted bad submits / all submits in the window at which the IP is banned (an invalid hash weighs 1, a stale or duplicate share 0.1 to 0.25).',
    ),
  firstBanSeconds: positiveInt.default(60).describe('Length of a first automatic ban.'),
  maxBanSeconds: positiveInt
    .default(3600)
    .describe('Each further ban of the same IP doubles in length, up to this.'),
  offenceMemoryMs: positiveInt
    .default(86_400_000)
    .describe('An IP not banned for this long starts again at firstBanSeconds.'),
  exemptIps: z
    .array(ipText({ networks: true }))
    .max(1_000)
    .default([])
    .describe(
      'IPs never banned automatically (e.g. your own proxy); an IPv6 peer is matched by its address or its network key ("2001:db8:1:2::/64").',
    ),
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
  maxLineBytes: positiveInt
    .default(32 * 1024)
    .describe('A stratum request line longer than this closes the connection.'),
  maxPendingRequests: positiveInt
    .default(32)
    .describe('Unanswered requests per connection at which the pool stops reading it until it has answered.'),
  maxSendQueueBytes: positiveInt
    .default(1024 * 1024)
    .describe('Bytes queued for a miner that does not read; beyond this it is dropped.'),
  loginTimeoutMs: timerMs
    .default(30_000)
    .describe('From connect (TLS handshake included) to a successful login, at most.'),
  idleTimeoutMs: timerMs
    .default(900_000)
    .describe('A logged-in connection that sends no request (keepalived counts) for this long is closed.'),
  writeTimeoutMs: timerMs
    .default(30_000)
    .describe('Queued writes that make no progress for this long close the connection.'),
  maxConnectionsPerIp: positiveInt
    .default(256)
    .describe('This and maxConnections are caps for the host: stratum.processes children count together.'),
  maxConnections: positiveInt
    .default(100_000)
    .describe('Stratum connections of the host in total; beyond it new ones are refused.'),
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
      'Login addresses not seen before that one IP (an IPv6 peer: its ipv6PrefixLength network) may have checked at once (~1.4 ms of event loop each); past it LOGIN_RATE_LIMITED. Known addresses, valid or refused, cost nothing; each stratum process starts knowing the addresses that sent shares in the last day (read from Redis in the background), so a farm behind one IP reconnecting after a restart is not slowed.',
    ),
  newAddressesPerIpPerMinute: positiveInt
    .default(30)
    .describe('How fast an IP earns back new-address checks after its burst (see newAddressBurstPerIp).'),
  listenBacklog: positiveInt
    .max(65_535)
    .default(4096)
    .describe(
      "Connections the kernel holds for each stratum port until the pool accepts them (listen()'s backlog; Linux caps it at net.core.somaxconn, 4096 on current kernels). After a pool restart every miner reconnects within seconds; past the backlog the kernel drops their handshakes, and each drop costs a miner a retry 1, 3, 7... seconds later (Node's default is 511).",
    ),
});

const sharedJobsSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe(
      "On a new template, XMRig 6 miners (not proxies, under vardiff, below maxMinerHashrate) get a blob shared by up to 255 of them, each with its own top nonce byte (blob byte 42, which XMRig keeps: its 'auto nicehash'), instead of a blob of their own: the pool builds one blob per 255 miners, not one per miner, so a push costs less CPU per miner. Their shares must carry that byte (else 'Invalid nonce; is miner not compatible with NiceHash?'), and since such a job holds 2^24 nonces a miner gets a fresh one once half of them are gone at the speed its difficulty says (not more often than every minute; a miner whose last retarget wanted more than vardiff.maxDifficulty gets a blob of its own). false gives every miner its own blob.",
    ),
  maxMinerHashrate: z
    .number()
    .int()
    .min(1)
    .max(200_000)
    .default(50_000)
    .describe(
      'H/s, judged from the vardiff difficulty (difficulty ÷ vardiff.targetShareTimeSec): a faster miner gets a blob of its own. At 50,000 H/s 2^24 nonces last 5.6 minutes, and such a miner gets a fresh job every 2.8 minutes.',
    ),
});

export const stratumSchema = z
  .strictObject({
    ports: z
      .array(stratumPortSchema)
      .min(1)
      .prefault([{ port: 3333, difficulty: 5000 }])
      .describe('The listening ports, each with its own start difficulty and mode.'),
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
        'Stratum processes on this host, sharing the ports (Node cluster); "auto" is one per core, or more (up to four per core) where a process\'s open-files limit holds fewer than limits.maxConnections between them (20,000 open files each: six for 100,000). With more than one, each child serves a share of the miners with node id `pool.nodeId + i`; the parent runs the other roles and shows the children as one.',
      ),
    childSemiSpaceMb: z
      .number()
      .int()
      .min(0)
      .max(256)
      .default(8)
      .describe(
        "V8's young-generation semi-space of each stratum child process, in MB (node's --max-semi-space-size); 0 leaves V8's default (16 MB on 64-bit). Every job push leaves garbage per miner: a large young generation keeps it in RSS (at 100,000 miners in 6 children, 16 MB took the pool's summed RSS ~0.16 GB above 1 MB, 8 MB ~0.04 GB above 4 MB), a small one collects it in more scavenges (at 100,000, pool CPU per miner per push fell by ~0.6 µs on average from 1 MB to 4 MB, and by ~1 µs from 4 MB to 8 MB; six alternating pairs each). A single-process pool takes the same flag from its own command line or NODE_OPTIONS.",
      ),
    directWrites: z
      .boolean()
      .default(true)
      .describe(
        "Lines to miners on plain TCP ports are written by the native addon (fuego_socket_write.node), a slice of a job push's lines in one call, instead of through Node's stream one socket at a time: less CPU per miner per push. A line the kernel does not take in full is written through Node as before. false, or the addon not built (the log says so at start), writes everything through Node; TLS ports always are.",
      ),
    sharedJobs: section(sharedJobsSchema).describe(
      'Jobs on one blob for many miners, each with its own top nonce byte: less CPU per miner on every new template.',
    ),
    jobsPerSession: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(4)
      .describe(
        'Jobs per miner whose shares are still accepted (the newest ones); a share on an older job is refused as expired.',
      ),
    staleGraceMs: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(2_000)
      .describe(
        'After a new block, shares on the previous template are still credited (never submitted) this long after the miner was sent its job on the new block.',
      ),
    minLoginDifficulty: positiveInt
      .default(100)
      .describe('A fixed difficulty asked in the login (`ADDRESS+DIFF`) below this is raised to it.'),
    ipv6PrefixLength: z
      .number()
      .int()
      .min(32)
      .max(128)
      .default(64)
      .describe(
        'IPv6 peers are capped (limits.maxConnectionsPerIp) and banned by their network of this many bits: one subscriber usually holds a whole /64. 128 treats each address on its own.',
      ),
    vardiff: section(vardiffSchema).describe(
      "Variable difficulty: each miner's difficulty is adjusted towards one share per targetShareTimeSec.",
    ),
    bans: section(bansSchema).describe(
      'Automatic bans of IPs (IPv6: networks) that send too many bad shares.',
    ),
    limits: section(stratumLimitsSchema).describe(
      'Bounds on what one connection or peer can make the pool hold.',
    ),
  })
  .refine((s) => !s.ports.some((p) => p.tls) || s.tls !== undefined, {
    message: 'a port has "tls": true, so stratum.tls.certFile and keyFile are required',
    path: ['tls'],
  })
  .superRefine((s, ctx) => {
    s.ports.forEach((later, index) => {
      const earlier = s.ports.findIndex((p, i) => i < index && listenersClash(p, later));
      if (earlier === -1) return;
      const { host, port } = s.ports[earlier]!;
      ctx.addIssue({
        code: 'custom',
        message: `listens on the port of stratum.ports.${earlier} (${host}:${port}): the same port on the same or an overlapping address (0.0.0.0 and :: take it on every address)`,
        path: ['ports', index],
      });
    });
  });
