import type { Socket } from 'node:net';

/**
 * What a client on a TLS port sent first:
 * - 'plain-json': a '{', i.e. a stratum miner without TLS (xmrig-proxy sniffs the same byte);
 * - 'other': anything else, a ClientHello (0x16) above all; the TLS stack takes it from here;
 * - 'gone': the socket closed or errored before a byte came;
 * - 'timeout': nothing came within the deadline.
 */
export type TlsPortGreeting = 'plain-json' | 'other' | 'gone' | 'timeout';

const OPEN_BRACE = 0x7b;

/**
 * Waits for the first bytes on an accepted socket and puts them back unread (unshift), so a
 * TLSSocket wrapped around it afterwards reads them as if nothing had looked. A TLS client sends
 * its hello right after connect and the server could not answer before it anyway, so the wait
 * costs a TLS handshake nothing.
 */
export function awaitTlsPortGreeting(socket: Socket, timeoutMs: number): Promise<TlsPortGreeting> {
  return new Promise((resolve) => {
    const settle = (greeting: TlsPortGreeting): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onGone);
      socket.off('error', onGone);
      resolve(greeting);
    };
    const onData = (chunk: Buffer): void => {
      socket.pause();
      socket.unshift(chunk);
      settle(chunk[0] === OPEN_BRACE ? 'plain-json' : 'other');
    };
    const onGone = (): void => settle('gone');
    const timer = setTimeout(() => settle('timeout'), timeoutMs);
    socket.on('data', onData);
    socket.once('close', onGone);
    socket.once('error', onGone);
  });
}
