/**
 * The pool's JSON API (src/servers/api/API.md). Paths are relative to the page, so the dashboard
 * also works behind a reverse proxy under a path prefix.
 */

/** A failed request: `code` is the API's error code (NOT_FOUND, INVALID_ADDRESS, ...) or NETWORK. */
export class ApiRequestError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiRequestError';
    this.status = status;
    this.code = code;
  }
}

export function getJson(path) {
  return requestJson(path, { headers: { accept: 'application/json' }, cache: 'no-store' });
}

export function postJson(path, body) {
  return requestJson(path, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
    cache: 'no-store',
  });
}

async function requestJson(path, init) {
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiRequestError(0, 'NETWORK', 'the pool API did not answer');
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = body?.error;
    throw new ApiRequestError(
      response.status,
      typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`,
      typeof error?.message === 'string' ? error.message : response.statusText,
    );
  }
  return body;
}

export const poolApi = {
  stats: () => getJson('api/stats'),
  poolChart: () => getJson('api/stats/chart?days=1'),
  blocks: (limit) => getJson(`api/blocks?limit=${limit}`),
  payments: (limit) => getJson(`api/payments?limit=${limit}`),
  miner: (address) => getJson(`api/miners/${encodeURIComponent(address)}`),
  minerWorkers: (address) => getJson(`api/miners/${encodeURIComponent(address)}/workers`),
  /** `{ thresholdCoins, timestampSec, signature }` signed by the miner's wallet. */
  setThreshold: (address, body) => postJson(`api/miners/${encodeURIComponent(address)}/threshold`, body),
};
