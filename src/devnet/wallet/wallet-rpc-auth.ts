import type { HttpOutcome, HttpRequestView } from '../http/rpc-http-server.js';

/** walletd's `--rpc-user` and `--rpc-password`; both empty: no authorization, as walletd does. */
export interface WalletRpcCredentials {
  readonly user: string;
  readonly password: string;
}

/**
 * walletd's answer to a request without its credentials, or undefined when the request may go on.
 * As Fuego's HttpServer: with a user or a password set, the request needs `Authorization: Basic `
 * and the base64 of "user:password", compared as text, before anything reads it; the refusal is a
 * 401 whose headers keep the JSON content type every reply starts with, then add the challenge and
 * a second, plain-text content type.
 */
export function walletRpcRefusal(
  credentials: WalletRpcCredentials,
  request: HttpRequestView,
): HttpOutcome | undefined {
  if (credentials.user === '' && credentials.password === '') return undefined;
  const expected = Buffer.from(`${credentials.user}:${credentials.password}`, 'utf8').toString('base64');
  const header = request.authorization;
  if (header?.startsWith('Basic ') && header.slice(6) === expected) return undefined;
  return {
    kind: 'reply',
    status: 401,
    body: 'Authorization required',
    headers: [
      ['Access-Control-Allow-Origin', '*'],
      ['content-type', 'application/json'],
      ['WWW-Authenticate', 'Basic realm="RPC"'],
      ['Content-Type', 'text/plain'],
    ],
  };
}
