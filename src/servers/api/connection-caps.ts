import type { Server } from 'node:net';
import type { FloodDrops } from '../flood-drop/flood-drops.js';
import { apiClientIp, apiPeerKey } from './api-peer.js';
import { PeerSlots } from './peer-slots.js';

export interface ApiConnectionCapsOptions {
  /** In all; node closes the excess at accept (server.maxConnections). */
  readonly maxConnections: number;
  readonly maxConnectionsPerPeer: number;
  /** Never capped per peer (a reverse proxy on the host forwards every visitor from one of them). */
  readonly exemptIps: readonly string[];
  readonly ipv6PrefixLength: number;
}

export interface ApiConnectionCapsModules {
  /** Drops the new connections of a peer that keeps coming while over its cap (flood-drops.ts). */
  readonly floodDrops?: FloodDrops;
}

/**
 * Caps the TCP connections of the API's server, in all and per peer. Without them one client
 * could hold thousands of idle connections (each for up to a minute before node's headers
 * timeout), taking the open files the stratum server in the same process needs for miners. A
 * connection over its peer's cap is reset at accept: no HTTP parsing, no reply, no TIME_WAIT.
 */
export class ApiConnectionCaps {
  readonly #options: ApiConnectionCapsOptions;
  readonly #exempt: ReadonlySet<string>;
  readonly #slots: PeerSlots;
  readonly #floodDrops: FloodDrops | undefined;
  #refusedPerPeer = 0;
  #refusedFull = 0;

  constructor(options: ApiConnectionCapsOptions, modules: ApiConnectionCapsModules = {}) {
    this.#options = options;
    this.#floodDrops = modules.floodDrops;
    this.#exempt = new Set(options.exemptIps.map(apiClientIp));
    this.#slots = new PeerSlots(options.maxConnectionsPerPeer);
  }

  /** Applies the caps to every connection `server` accepts from now on. */
  attach(server: Server): void {
    server.maxConnections = this.#options.maxConnections;
    const floodDrops = this.#floodDrops;
    if (floodDrops !== undefined) {
      server.on('listening', () => floodDrops.addListener(server));
      server.on('close', () => floodDrops.removeListener(server));
    }
    server.on('drop', () => {
      this.#refusedFull += 1;
    });
    server.on('connection', (socket) => {
      const ip = socket.remoteAddress;
      if (ip === undefined || this.#exempt.has(apiClientIp(ip))) return;
      const peer = apiPeerKey(ip, this.#options.ipv6PrefixLength);
      if (!this.#slots.take(peer)) {
        this.#refusedPerPeer += 1;
        this.#floodDrops?.noteRefusal(peer);
        socket.resetAndDestroy();
        return;
      }
      socket.once('close', () => this.#slots.release(peer));
    });
  }

  /** Connections reset because their peer held its share. */
  get refusedPerPeer(): number {
    return this.#refusedPerPeer;
  }

  /** Connections closed because the server held maxConnections. */
  get refusedFull(): number {
    return this.#refusedFull;
  }
}
