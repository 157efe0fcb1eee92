import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { ApiOptions } from '../../config/api-schema.js';
import type { Logger } from '../../log/logger.js';
import type { PoolEventBus, PoolEventMap, PoolEventName } from '../../pool/events.js';
import type { HashrateReader } from '../../store/hashrate/hashrate-reader.js';
import { apiPeerKey } from './api-peer.js';
import { FeedAddressChecks } from './feed-address-checks.js';
import { PeerSlots } from './peer-slots.js';
import { TickWaiters, type WaitRefusal } from './tick-waiters.js';

/** Where the feed is served (a WebSocket upgrade of a plain GET). */
export const LIVE_FEED_PATH = '/api/live';

/**
 * Wire format (server -> client), one JSON object per message:
 *   { "type": <type>, "data": {...}, "timestampMs": <ms> }
 * types: hello, network-block, block-found, block-refused, block-confirmed, block-orphaned,
 * block-orphaned-after-credit, payment-sent,
 * pool-hashrate (every feedIntervalMs), miner-hashrate (every feedIntervalMs, per subscription),
 * subscribed, unsubscribed, error. Client -> server: {"op":"subscribe"|"unsubscribe","address":..}.
 * bigint values are sent as decimal strings (amounts end in `Atomic`).
 */
export type LiveMessageType =
  | 'hello'
  | PoolEventName
  | 'pool-hashrate'
  | 'miner-hashrate'
  | 'subscribed'
  | 'unsubscribed'
  | 'error';

/**
 * Public facts only: block-refused and block-orphaned-after-credit too (miners lose that reward, or
 * learn that one they were credited is off the chain); not payment-failed, worker-offline.
 */
export const FORWARDED_EVENTS: readonly PoolEventName[] = [
  'network-block',
  'block-found',
  'block-refused',
  'block-confirmed',
  'block-orphaned',
  'block-orphaned-after-credit',
  'payment-sent',
];

export interface LiveFeedModules {
  readonly events: PoolEventBus;
  readonly hashrate: HashrateReader;
  readonly logger: Logger;
  readonly clock: () => number;
  /** Peers are counted by this IPv6 network (stratum.ipv6PrefixLength); 64 when absent. */
  readonly ipv6PrefixLength?: number;
  /** The API's per-peer request budget (RequestRateLimit): each connection takes a token. */
  readonly allowConnection?: (ip: string | undefined) => boolean;
  /** A peer refused (a 429 handshake, a close for bad requests): the kernel flood drops count it. */
  readonly onRefusal?: (peer: string) => void;
}

export type { WaitRefusal } from './tick-waiters.js';

/** Close code for a client that broke the feed's rules (RFC 6455 policy violation). */
export const POLICY_VIOLATION = 1008;

export interface LiveFeedMetrics {
  readonly clients: number;
  readonly droppedSlow: number;
  readonly droppedUnresponsive: number;
  readonly refusedFull: number;
  readonly refusedPeer: number;
  readonly closedBadRequests: number;
}

interface Client {
  readonly socket: WebSocket;
  /** Whom the per-peer caps count it as (see apiPeerKey). */
  readonly peer: string;
  readonly subscriptions: Set<string>;
  alive: boolean;
  badRequests: number;
  addressChecks: number;
  /** Its messages are handled one after another, in order, even while one waits for its check. */
  handling: Promise<void>;
}

function jsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v)]));
  }
  return value;
}

/**
 * The WebSocket live feed. Every per-client output is bounded: a client whose unsent bytes pass
 * `maxBufferedBytes` is dropped on the spot (slow readers cannot make the pool buffer without
 * limit), a client that misses a ping is dropped, incoming messages are capped at
 * `maxIncomingBytes`, subscriptions per client and in total are capped, and connections beyond
 * `maxClients` are refused at the upgrade. Hashrates are read once per tick for all clients.
 */
export class LiveFeed {
  readonly #options: ApiOptions;
  readonly #modules: LiveFeedModules;
  readonly #wss: WebSocketServer;
  readonly #clients = new Set<Client>();
  readonly #followed = new Map<string, number>(); // address -> clients following it
  readonly #unsubscribe: (() => void)[] = [];
  #tickTimer: NodeJS.Timeout | undefined;
  #pingTimer: NodeJS.Timeout | undefined;
  #lastNetworkHeight = -1;
  readonly #feedSlots: PeerSlots;
  readonly #tickWaiters: TickWaiters;
  readonly #addressChecks: FeedAddressChecks;
  #refusedPeer = 0;
  #closedBadRequests = 0;
  #ticking = false;
  #closed = false;
  #droppedSlow = 0;
  #droppedUnresponsive = 0;
  #refusedFull = 0;

  constructor(options: ApiOptions, modules: LiveFeedModules) {
    this.#options = options;
    this.#modules = modules;
    this.#feedSlots = new PeerSlots(options.liveFeed.maxClientsPerPeer);
    this.#tickWaiters = new TickWaiters({
      maxWaiters: options.maxLongPollWaiters,
      maxWaitersPerPeer: options.maxLongPollWaitersPerPeer,
    });
    this.#addressChecks = new FeedAddressChecks(options.liveFeed, modules.clock);
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.liveFeed.maxIncomingBytes,
      perMessageDeflate: false,
      clientTracking: false,
    });
  }

  /** Serves the feed on `server`'s upgrade requests for LIVE_FEED_PATH; other upgrades are refused. */
  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.#handleUpgrade(request, socket, head);
    });
  }

  start(): void {
    if (this.#tickTimer !== undefined || this.#closed) return;
    for (const name of FORWARDED_EVENTS) {
      this.#unsubscribe.push(
        this.#modules.events.subscribe(name, (payload) =>
          this.#onEvent(name, payload as PoolEventMap[typeof name]),
        ),
      );
    }
    this.#tickTimer = setInterval(() => void this.tick(), this.#options.feedIntervalMs);
    this.#tickTimer.unref();
    this.#pingTimer = setInterval(() => this.#ping(), this.#options.liveFeed.pingIntervalMs);
    this.#pingTimer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#tickTimer);
    clearInterval(this.#pingTimer);
    for (const off of this.#unsubscribe.splice(0)) off();
    for (const client of this.#clients) client.socket.close(1001, 'server shutting down');
    for (const client of this.#clients) client.socket.terminate();
    this.#clients.clear();
    this.#tickWaiters.releaseAll();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  metrics(): LiveFeedMetrics {
    return {
      clients: this.#clients.size,
      droppedSlow: this.#droppedSlow,
      droppedUnresponsive: this.#droppedUnresponsive,
      refusedFull: this.#refusedFull,
      refusedPeer: this.#refusedPeer,
      closedBadRequests: this.#closedBadRequests,
    };
  }

  /**
   * Resolves after the next tick (the classic `/live_stats` long poll from `ip`, as Fastify
   * reports it) with that tick's number, the same for every waiter it released (so they can share
   * one read); a refusal when too many wait in all or from that peer.
   */
  waitForTick(ip: string): Promise<number> | WaitRefusal {
    return this.#tickWaiters.wait(this.#peerOf(ip));
  }

  #peerOf(ip: string | undefined): string {
    return apiPeerKey(ip, this.#modules.ipv6PrefixLength ?? 64);
  }

  /** One hashrate round: pool to everyone, each followed miner to its followers. */
  async tick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    try {
      if (this.#clients.size > 0) await this.#broadcastHashrates();
    } catch (error) {
      this.#modules.logger.warn({ err: error }, 'live feed tick failed');
    } finally {
      this.#ticking = false;
      this.#tickWaiters.releaseAll();
    }
  }

  /** Sends to every client (events). */
  broadcast(type: LiveMessageType, data: unknown): void {
    if (this.#clients.size === 0) return;
    const text = this.#encode(type, data);
    for (const client of this.#clients) this.#send(client, text);
  }

  async #broadcastHashrates(): Promise<void> {
    const { hashrate, clock } = this.#modules;
    const now = clock();
    const [poolRate, active] = await Promise.all([
      hashrate.poolHashrate(now, this.#options.hashrateWindowMs),
      hashrate.activeCounts(now, this.#options.activeWindowMs),
    ]);
    this.broadcast('pool-hashrate', { hashrate: poolRate, miners: active.miners, workers: active.workers });
    if (this.#followed.size === 0) return;
    const rates = await hashrate.minersHashrate(
      [...this.#followed.keys()],
      now,
      this.#options.hashrateWindowMs,
    );
    for (const client of this.#clients) {
      for (const address of client.subscriptions) {
        this.#send(client, this.#encode('miner-hashrate', { address, hashrate: rates.get(address) ?? 0 }));
      }
    }
  }

  #onEvent<K extends PoolEventName>(name: K, payload: PoolEventMap[K]): void {
    if (name === 'network-block') {
      // The daemon poller and the template source may both report one tip: forward it once.
      const height = (payload as PoolEventMap['network-block']).height;
      if (height <= this.#lastNetworkHeight) return;
      this.#lastNetworkHeight = height;
    }
    this.broadcast(name, payload);
  }

  #encode(type: LiveMessageType, data: unknown): string {
    return JSON.stringify({ type, data: jsonSafe(data), timestampMs: this.#modules.clock() });
  }

  #send(client: Client, text: string): void {
    const socket = client.socket;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount + Buffer.byteLength(text) > this.#options.liveFeed.maxBufferedBytes) {
      this.#droppedSlow += 1;
      this.#drop(client);
      return;
    }
    socket.send(text);
  }

  #drop(client: Client): void {
    this.#removeClient(client);
    client.socket.terminate();
  }

  #removeClient(client: Client): void {
    if (!this.#clients.delete(client)) return;
    for (const address of client.subscriptions) this.#unfollow(address);
    client.subscriptions.clear();
  }

  #unfollow(address: string): void {
    const count = (this.#followed.get(address) ?? 1) - 1;
    if (count <= 0) this.#followed.delete(address);
    else this.#followed.set(address, count);
  }

  #handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (request.url ?? '').split('?')[0];
    const refuse = (status: string): void => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    if (path !== LIVE_FEED_PATH || this.#closed) {
      refuse('404 Not Found');
      return;
    }
    if (this.#clients.size >= this.#options.liveFeed.maxClients) {
      this.#refusedFull += 1;
      refuse('503 Service Unavailable');
      return;
    }
    const peer = this.#peerOf(request.socket.remoteAddress);
    if (
      this.#modules.allowConnection?.(request.socket.remoteAddress) === false ||
      !this.#feedSlots.take(peer)
    ) {
      this.#refusedPeer += 1;
      this.#modules.onRefusal?.(peer);
      refuse('429 Too Many Requests');
      return;
    }
    // The TCP socket closes however the connection ends (refused handshake, close, drop).
    socket.once('close', () => this.#feedSlots.release(peer));
    this.#wss.handleUpgrade(request, socket, head, (ws) => this.#accept(ws, peer));
  }

  #accept(socket: WebSocket, peer: string): void {
    const client: Client = {
      socket,
      peer,
      subscriptions: new Set(),
      alive: true,
      badRequests: 0,
      addressChecks: 0,
      handling: Promise.resolve(),
    };
    this.#clients.add(client);
    socket.on('pong', () => {
      client.alive = true;
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      client.handling = client.handling
        .then(() => this.#onMessage(client, data, isBinary))
        .catch((error: unknown) => {
          this.#modules.logger.warn({ err: error }, 'live feed message failed; connection dropped');
          this.#drop(client);
        });
    });
    socket.on('close', () => this.#removeClient(client));
    socket.on('error', () => this.#drop(client));
    this.#send(
      client,
      this.#encode('hello', {
        maxSubscriptions: this.#options.liveFeed.maxSubscriptionsPerClient,
        intervalMs: this.#options.feedIntervalMs,
      }),
    );
  }

  async #onMessage(client: Client, data: RawData, isBinary: boolean): Promise<void> {
    if (isBinary) {
      this.#refuse(client, 'BAD_REQUEST', 'send text JSON messages');
      return;
    }
    let request: { op?: unknown; address?: unknown };
    try {
      request = JSON.parse(String(data)) as { op?: unknown; address?: unknown };
    } catch {
      this.#refuse(client, 'BAD_REQUEST', 'not JSON');
      return;
    }
    const address = request?.address;
    if ((request?.op !== 'subscribe' && request?.op !== 'unsubscribe') || typeof address !== 'string') {
      this.#refuse(client, 'BAD_REQUEST', 'expected {"op":"subscribe"|"unsubscribe","address":"..."}');
      return;
    }
    if (request.op === 'unsubscribe') {
      if (client.subscriptions.delete(address)) this.#unfollow(address);
      this.#send(client, this.#encode('unsubscribed', { address }));
      return;
    }
    await this.#subscribe(client, address);
  }

  /**
   * Cheap limits first: an address not seen before is decoded (~1.4 ms of ed25519 checks) only
   * within them, and in its turn (FeedAddressChecks).
   */
  async #subscribe(client: Client, address: string): Promise<void> {
    // Subscribing is idempotent: a repeat is answered like the first, and still followed once.
    if (client.subscriptions.has(address)) {
      this.#send(client, this.#encode('subscribed', { address }));
      return;
    }
    if (this.#subscriptionRefused(client, address)) return;
    const checks = this.#addressChecks;
    if (!this.#followed.has(address)) {
      if (!checks.isKnown(address)) {
        const refusal = checks.charge(client, client.peer);
        if (refusal !== undefined) {
          const where =
            refusal === 'connection-spent' ? 'on this connection' : 'from your address; retry later';
          this.#refuse(client, 'TOO_MANY_REQUESTS', `too many new addresses ${where}`, address);
          return;
        }
        await checks.turn(client.peer);
        // Meanwhile the client may have gone, or its other subscribes filled its limits.
        if (!this.#clients.has(client) || this.#subscriptionRefused(client, address)) return;
      }
      if (!checks.isValid(address)) {
        // A refused address costs its sender one of its few bad requests.
        this.#refuse(client, 'INVALID_ADDRESS', 'not a valid Fuego address', address);
        return;
      }
    }
    client.subscriptions.add(address);
    this.#followed.set(address, (this.#followed.get(address) ?? 0) + 1);
    this.#send(client, this.#encode('subscribed', { address }));
  }

  /** True (and the client told why) when the subscription caps leave no room for `address`. */
  #subscriptionRefused(client: Client, address: string): boolean {
    const limits = this.#options.liveFeed;
    const clientFull = client.subscriptions.size >= limits.maxSubscriptionsPerClient;
    if (!clientFull && (this.#followed.has(address) || this.#followed.size < limits.maxSubscribedAddresses))
      return false;
    const message = clientFull
      ? `at most ${limits.maxSubscriptionsPerClient} addresses per connection`
      : 'the server follows too many addresses; retry later';
    this.#error(client, 'TOO_MANY_SUBSCRIPTIONS', message, address);
    return true;
  }

  /** `address`: the one a subscribe asked for, so a client subscribing several knows which failed. */
  #error(client: Client, code: string, message: string, address?: string): void {
    this.#send(
      client,
      this.#encode('error', address === undefined ? { code, message } : { code, message, address }),
    );
  }

  /** A bad request: answered, and counted; the last one allowed closes the connection. */
  #refuse(client: Client, code: string, message: string, address?: string): void {
    this.#error(client, code, message, address);
    client.badRequests += 1;
    if (client.badRequests < this.#options.liveFeed.maxBadRequests) return;
    this.#closedBadRequests += 1;
    this.#modules.onRefusal?.(client.peer);
    this.#removeClient(client);
    client.socket.close(POLICY_VIOLATION, 'too many bad requests');
  }

  #ping(): void {
    for (const client of this.#clients) {
      if (!client.alive) {
        this.#droppedUnresponsive += 1;
        this.#drop(client);
        continue;
      }
      client.alive = false;
      client.socket.ping();
    }
  }
}
