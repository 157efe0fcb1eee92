import { z } from 'zod';
import { explorerSchema } from './explorer-schema.js';
import { ipText } from './schema-parts.js';

/**
 * Requests per peer: every route and the live feed's upgrade take a token. The few that are not
 * cheap (payment pages, long polls, address checks) have their own caps besides.
 */
const rateLimitSchema = z.strictObject({
  requestsPerMinute: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(600)
    .describe(
      'Requests one peer (an IP; an IPv6 peer: its stratum.ipv6PrefixLength network) may make a minute on average, live feed connections included; beyond it HTTP 429 with Retry-After. 0 turns the limit off.',
    ),
  burst: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(120)
    .describe(
      'Requests one peer may make at once before the per-minute rate applies (a dashboard page load is about ten).',
    ),
  exemptIps: z
    .array(ipText({ networks: false }))
    .max(1_000)
    .default(['127.0.0.1', '::1'])
    .describe(
      'Never limited. A reverse proxy on the same host forwards every visitor from one of these addresses: limit at the proxy then.',
    ),
  refusalDelayMs: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(1_000)
    .describe(
      'A refused request is answered (429) after this long: a client that ignores Retry-After waits on each of its connections instead of costing the pool a reply per round trip. 0 answers at once.',
    ),
  maxPeers: z
    .number()
    .int()
    .min(1)
    .max(10_000_000)
    .default(100_000)
    .describe(
      'Peers remembered; the least recently seen are forgotten first (which only gives one a full burst back).',
    ),
});

/**
 * A browser origin as the Origin header carries it (scheme://host[:port]); the CORS plugin
 * compares that header with these texts exactly, so anything else would never match. Spelled as
 * browsers send it (URL#origin: lower case, punycode, no default port) so "https://Pool.Example:443"
 * still matches.
 */
const corsOrigin = z
  .string()
  .superRefine((text, ctx) => {
    if (text === '*' || browserOrigin(text) !== null) return;
    ctx.addIssue({
      code: 'custom',
      message: `"${text}" is not an origin: write scheme://host[:port] (http or https) with no path, query or trailing "/", or "*"`,
    });
  })
  .overwrite((text) => (text === '*' ? text : (browserOrigin(text) ?? text)));

function browserOrigin(text: string): string | null {
  // No path (not even "/"), query, fragment or user info: URL would accept them and drop them.
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#@\\]+$/i.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
}

/** The `api` config section: the HTTP API, the dashboard's static files and the WebSocket live feed. */
const liveFeedSchema = z.strictObject({
  maxClients: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(2_000)
    .describe('Connections beyond this are refused at the upgrade (HTTP 503).'),
  maxClientsPerPeer: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(20)
    .describe(
      'Connections one peer (an IP; an IPv6 peer: its stratum.ipv6PrefixLength network) may hold; beyond it the upgrade is refused (HTTP 429), so one client cannot take every slot.',
    ),
  maxAddressChecksPerClient: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(50)
    .describe(
      'Addresses not seen before that one connection may have decoded (~1.4 ms of ed25519 checks each); past it subscribe answers TOO_MANY_REQUESTS, a bad request.',
    ),
  newAddressBurstPerPeer: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(50)
    .describe(
      'Addresses not seen before that one peer may have decoded at once, over all its connections (reconnecting gives no new budget)...',
    ),
  newAddressesPerPeerPerMinute: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(30)
    .describe('...and then so many a minute; past it subscribe answers TOO_MANY_REQUESTS, a bad request.'),
  maxBadRequests: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(5)
    .describe(
      'Bad requests (not JSON, unknown op, invalid address) after which a connection is closed (code 1008, policy violation).',
    ),
  maxBufferedBytes: z
    .number()
    .int()
    .min(1_024)
    .max(64 * 1024 * 1024)
    .default(256 * 1024)
    .describe('A client whose unsent data passes this is dropped (it does not read fast enough).'),
  maxSubscriptionsPerClient: z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(10)
    .describe('Addresses one client may follow.'),
  maxSubscribedAddresses: z
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(5_000)
    .describe('Distinct addresses followed by all clients together (bounds the per-tick Redis reads).'),
  maxIncomingBytes: z
    .number()
    .int()
    .min(256)
    .max(65_536)
    .default(4_096)
    .describe('Largest message a client may send (subscribe requests are tiny).'),
  pingIntervalMs: z
    .number()
    .int()
    .min(1_000)
    .max(300_000)
    .default(30_000)
    .describe('Ping interval; a client that did not answer the previous ping is dropped.'),
});

/** The section's fields, before the cross-field check (schema.ts extends them with `enabled`). */
export const apiOptionsFields = z.strictObject({
  host: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe(
      'Listen address of the API, dashboard and live feed; 127.0.0.1 behind a reverse proxy, "0.0.0.0" or "::" to serve the world.',
    ),
  port: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(8117)
    .describe('Their TCP port; 0 takes any free port (tests).'),
  dashboard: z
    .boolean()
    .default(true)
    .describe('Serve the web dashboard at `/` (false: `/` answers 404, the API and live feed still run).'),
  staticDir: z
    .string()
    .min(1)
    .nullable()
    .default(null)
    .describe(
      "Folder of the dashboard's static files (must hold index.html); null: the package's own `dashboard/`.",
    ),
  corsOrigins: z
    .array(corsOrigin)
    .refine((origins) => !origins.includes('*') || origins.length === 1, {
      message: '"*" allows any origin: list it alone',
    })
    .default([])
    .describe(
      'Allowed CORS origins, each `scheme://host[:port]` as a browser sends it (http or https, no path, not even a trailing "/"; spelled in lower case without a default port at start); [] disables CORS headers, ["*"] allows any origin.',
    ),
  hashrateWindowMs: z
    .number()
    .int()
    .min(60_000)
    .max(3_600_000)
    .default(600_000)
    .describe('Window of the "current" hashrates.'),
  activeWindowMs: z
    .number()
    .int()
    .min(60_000)
    .max(86_400_000)
    .default(600_000)
    .describe('A miner/worker with a share within this counts as active.'),
  minerChartSpanMs: z
    .number()
    .int()
    .min(3_600_000)
    .max(86_400_000)
    .default(86_400_000)
    .describe("Time span of a miner's hashrate chart (`/api/miners/:address`)."),
  minerChartResolutionMs: z
    .number()
    .int()
    .min(60_000)
    .max(3_600_000)
    // The chart is summed from minute buckets (hashrate-reader.ts), which refuses anything else.
    .multipleOf(60_000, { message: 'must be a whole number of minutes (a multiple of 60000)' })
    .default(600_000)
    .describe("Time per point of a miner's hashrate chart; a whole number of minutes."),
  workerOfflineMs: z
    .number()
    .int()
    .min(180_000)
    .max(86_400_000)
    .default(600_000)
    .describe(
      "A worker without a share for this long is offline (API `offline`, the miner page, the `worker-offline` notification). Keep it well above XMRig's donation pause (1 minute in 100 at --donate-level=1), so donating is not going offline.",
    ),
  maxWorkerCharts: z
    .number()
    .int()
    .min(0)
    .max(500)
    .default(20)
    .describe(
      "Workers (the most recently active first) whose hashrate chart `/api/miners/:address/workers` and the classic `/stats_address` include; each costs one Redis read per hour of the miner chart's span.",
    ),
  poolChartSpanMs: z
    .number()
    .int()
    .min(3_600_000)
    .max(604_800_000)
    .default(86_400_000)
    .describe('Pool chart span (10-minute points) of /api/stats/chart and the classic /stats charts.'),
  networkRefreshMs: z
    .number()
    .int()
    .min(1_000)
    .max(300_000)
    .default(5_000)
    .describe('getinfo poll interval.'),
  networkExtrasRefreshMs: z
    .number()
    .int()
    .min(5_000)
    .max(3_600_000)
    .default(60_000)
    .describe('fee pool / HEAT deposits poll interval (optional, heavier endpoints).'),
  healthRefreshMs: z
    .number()
    .int()
    .min(1_000)
    .max(300_000)
    .default(10_000)
    .describe('Wallet probe interval for /health.'),
  maxTemplateAgeMs: z
    .number()
    .int()
    .min(1_000)
    .max(3_600_000)
    .default(120_000)
    .describe('/health reports the template as failing when older than this.'),
  feedIntervalMs: z.number().int().min(500).max(600_000).default(5_000).describe('Live feed hashrate tick.'),
  maxLongPollWaiters: z
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(1_000)
    .describe('Classic long-poll `/live_stats` requests waiting at once.'),
  maxLongPollWaitersPerPeer: z
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(10)
    .describe(
      'Of those, requests one peer (an IP; an IPv6 peer: its stratum.ipv6PrefixLength network) may have waiting; beyond it TOO_MANY_WAITERS_FROM_PEER (HTTP 429).',
    ),
  maxSignatureChecksPerSecond: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(20)
    .describe(
      'Signatures checked per second by `POST /api/miners/:address/threshold`, for the whole process (about 5 ms of CPU each, on the event loop); requests beyond it answer TOO_MANY_REQUESTS.',
    ),
  maxConnections: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(4_000)
    .describe(
      'TCP connections the API, dashboard and live feed hold at once (feed clients and long polls included); beyond it a new connection is closed at accept. It keeps the open files the stratum server needs for miners.',
    ),
  maxConnectionsPerPeer: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(64)
    .describe(
      'Of those, connections one peer (an IP; an IPv6 peer: its stratum.ipv6PrefixLength network) may hold; beyond it a new one is reset at accept, before any HTTP. Addresses in api.rateLimit.exemptIps (a reverse proxy on the host) are not capped.',
    ),
  classicApi: z
    .boolean()
    .default(true)
    .describe('Serve the classic cryptonote-nodejs-pool read endpoints (/stats, /get_blocks, ...).'),
  liveFeed: liveFeedSchema
    .default(() => liveFeedSchema.parse({}))
    .describe('The WebSocket live feed (`/api/live`): its limits per client and in total.'),
  rateLimit: rateLimitSchema
    .default(() => rateLimitSchema.parse({}))
    .describe('Requests per peer for the whole API (routes and live feed connections).'),
  explorer: explorerSchema.default(() => explorerSchema.parse({})),
});

/** A dashboard folder given while the dashboard is switched off is a mistake in one of the two keys. */
export function checkDashboardSwitch(
  options: { readonly dashboard: boolean; readonly staticDir: string | null },
  context: z.RefinementCtx,
): void {
  if (!options.dashboard && options.staticDir !== null) {
    context.addIssue({
      code: 'custom',
      path: ['staticDir'],
      message: 'is set while api.dashboard is false: remove one of the two',
    });
  }
}

export const apiOptionsSchema = apiOptionsFields.superRefine(checkDashboardSwitch);

export type ApiOptions = z.infer<typeof apiOptionsSchema>;
export type ApiOptionsInput = z.input<typeof apiOptionsSchema>;
