import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFixture } from './fixtures.js';

export interface RecordedRequest {
  method: string;
  url: string;
  body: string;
}

export interface CannedReply {
  status: number;
  body: string;
  delayMs?: number;
}

/**
 * A loopback HTTP server that answers with captured real-daemon replies. `route` picks the reply
 * from the request (path + parsed JSON-RPC method); every request is recorded for assertions.
 */
export async function startReplayServer(
  route: (request: RecordedRequest, json: unknown) => CannedReply,
): Promise<{ port: number; requests: RecordedRequest[]; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(recorded);
      let json: unknown;
      try {
        json = JSON.parse(recorded.body);
      } catch {
        json = undefined;
      }
      const reply = route(recorded, json);
      setTimeout(() => {
        // With its length, as fuegod answers (not chunked).
        res.writeHead(reply.status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(reply.body),
        });
        res.end(reply.body);
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A captured reply of the real fuegod/walletd: `fuegod-rpc/NAME` → status + body. */
export function capturedReply(name: string): CannedReply {
  const http = readFixture(`${name}.response.http`);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(http)?.[1] ?? 0);
  return { status, body: readFixture(`${name}.response.body`) };
}
