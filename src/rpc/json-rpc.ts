import type { z } from 'zod';
import type { HttpExchange } from './json-http.js';
import { RpcError } from './rpc-error.js';

/**
 * One JSON-RPC 2.0 call over POST /json_rpc, shared by the daemon and wallet clients. A reply
 * with an `error` object becomes RPC_ERROR carrying `rpcCode`, `rpcMessage` and, for walletd's
 * -32000 errors, `applicationCode` (data.application_code). Returns the raw `result`.
 */
export async function callJsonRpc(
  http: HttpExchange,
  id: number | string,
  method: string,
  params: Record<string, unknown> | unknown[],
): Promise<unknown> {
  const response = await http.send(
    'POST',
    '/json_rpc',
    JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  );
  if (response.status === 401) {
    throw new RpcError(
      'RPC_UNAUTHORIZED',
      `${method}: HTTP 401, the server refused the credentials sent (walletd's --rpc-user and --rpc-password are the pool's wallet.rpcUser and FUEGO_POOL_WALLET_RPC_PASSWORD)`,
      { method, status: 401 },
    );
  }
  if (response.status !== 200) {
    throw new RpcError('RPC_HTTP_STATUS', `${method}: HTTP ${response.status}`, {
      method,
      status: response.status,
    });
  }
  const json = parseJson(response.body, method) as { error?: unknown; result?: unknown } | null;
  if (json === null || typeof json !== 'object') {
    throw new RpcError('RPC_BAD_RESPONSE', `${method}: reply is not a JSON object`, { method });
  }
  if (json.error !== undefined && json.error !== null) {
    const error = json.error as { code?: unknown; message?: unknown; data?: { application_code?: unknown } };
    const rpcCode = typeof error.code === 'number' ? error.code : undefined;
    const rpcMessage = typeof error.message === 'string' ? error.message : String(error.message);
    const applicationCode =
      typeof error.data?.application_code === 'number' ? error.data.application_code : undefined;
    throw new RpcError('RPC_ERROR', `${method}: ${rpcMessage} (${applicationCode ?? rpcCode ?? 'no code'})`, {
      method,
      rpcCode,
      rpcMessage,
      applicationCode,
    });
  }
  if (!('result' in json)) {
    throw new RpcError('RPC_BAD_RESPONSE', `${method}: reply has neither result nor error`, { method });
  }
  return json.result;
}

export function parseJson(body: string, what: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new RpcError('RPC_BAD_RESPONSE', `${what}: reply is not JSON (${body.slice(0, 60)}…)`, {
      what,
      bodyPrefix: body.slice(0, 200),
    });
  }
}

/** Validates a reply against its schema; a mismatch is RPC_BAD_RESPONSE naming the first bad field. */
export function validateReply<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected shape';
    throw new RpcError('RPC_BAD_RESPONSE', `${what}: unexpected reply (${where})`, { what });
  }
  return parsed.data;
}
