import { Agent, type AgentOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import type { ConnectionOptions, TLSSocket } from 'node:tls';

/** A certificate's SHA-256 fingerprint as compared here: lowercase hex, no colons. */
function fingerprintOf(socket: TLSSocket): string {
  const presented = socket.getPeerCertificate?.().fingerprint256;
  return typeof presented === 'string' ? presented.replaceAll(':', '').toLowerCase() : '';
}

/**
 * An HTTPS agent that trusts exactly one certificate, by its SHA-256 fingerprint (a self-signed
 * one is what pinning is for, so neither a CA nor the name is checked). A connection presenting
 * another is destroyed as its handshake ends, before any request is written to it (the request
 * may carry walletd's credentials, or a payment) and before any answer can be read from it.
 */
export class PinnedHttpsAgent extends Agent {
  readonly #fingerprint256: string;

  constructor(fingerprint256: string, options: AgentOptions) {
    super({ ...options, rejectUnauthorized: false });
    this.#fingerprint256 = fingerprint256;
  }

  override createConnection(
    options: ConnectionOptions,
    callback?: (error: Error | null, socket: Duplex) => void,
  ): Duplex {
    const socket = super.createConnection(options, callback) as TLSSocket;
    socket.once('secureConnect', () => {
      const actual = fingerprintOf(socket);
      if (actual === this.#fingerprint256) return;
      const error = Object.assign(
        new Error(
          `TLS certificate is not the pinned one (SHA-256 ${actual || 'none'}, expected ${this.#fingerprint256})`,
        ),
        { code: 'TLS_FINGERPRINT_MISMATCH' },
      );
      socket.destroy(error);
    });
    return socket;
  }
}
