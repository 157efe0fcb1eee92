import { clip } from './chat-message.js';

/** One HTTP request of a notification, ready to send. */
export interface NotificationRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface SendFailure {
  readonly outcome: 'retry' | 'refused';
  readonly detail: string;
  /** What the receiver asked to wait before the next request (429 retry_after, 503 Retry-After). */
  readonly retryAfterMs?: number;
}

export type SendResult = { readonly outcome: 'delivered' } | SendFailure;

/** A receiver asking for more than this is waited for this long, then asked again. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/** Of an error reply, only this much is read (for retry_after and the receiver's error text). */
const MAX_ERROR_BODY_BYTES = 8_192;

/**
 * POSTs one request. 2xx: delivered. Network errors, timeouts, 408, 425, 429 and 5xx: retry;
 * other statuses (4xx, redirects, which could point anywhere) are refusals. An error reply's
 * JSON `description` (Telegram) or `message` (Discord) is added to the detail, and a 429's or
 * 503's `Retry-After` header, `retry_after` (Discord) or `parameters.retry_after` (Telegram)
 * becomes retryAfterMs.
 */
export async function sendNotification(
  fetchFn: typeof fetch,
  request: NotificationRequest,
  timeoutMs: number,
  nowMs: number,
): Promise<SendResult> {
  try {
    const response = await fetchFn(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status >= 200 && response.status < 300) {
      // The reply body is not needed; cancelling frees the connection.
      await response.body?.cancel().catch(() => undefined);
      return { outcome: 'delivered' };
    }
    const reply = parseJson(await readBounded(response, MAX_ERROR_BODY_BYTES));
    const description = errorDescription(reply);
    const detail = `HTTP ${response.status}${description === undefined ? '' : `: ${description}`}`;
    const status = response.status;
    const retryable = status === 408 || status === 425 || status === 429 || status >= 500;
    if (!retryable) return { outcome: 'refused', detail };
    // 503 with Retry-After: down for maintenance, and it says for how long (RFC 9110 10.2.3).
    const asksToWait = status === 429 || status === 503;
    const retryAfterMs = asksToWait ? retryAfterOf(response.headers, reply, nowMs) : undefined;
    return { outcome: 'retry', detail, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    const detail = name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : errorText(error);
    return { outcome: 'retry', detail };
  }
}

/**
 * The longest wait a 429 or 503 asks for, in ms (at most MAX_RETRY_AFTER_MS): the Retry-After
 * header (seconds, fractions allowed, or an HTTP date), Discord's `retry_after` (seconds) or
 * Telegram's `parameters.retry_after` (seconds). None given: undefined.
 */
export function retryAfterOf(headers: Headers, reply: unknown, nowMs: number): number | undefined {
  const seconds: number[] = [];
  const header = headers.get('retry-after')?.trim();
  if (header !== undefined && header !== '') {
    if (/^\d+(\.\d+)?$/.test(header)) seconds.push(Number(header));
    else if (!Number.isNaN(Date.parse(header))) seconds.push((Date.parse(header) - nowMs) / 1_000);
  }
  const body = reply as { retry_after?: unknown; parameters?: { retry_after?: unknown } } | undefined;
  for (const value of [body?.retry_after, body?.parameters?.retry_after]) {
    if (typeof value === 'number' && Number.isFinite(value)) seconds.push(value);
  }
  if (seconds.length === 0) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.ceil(Math.max(...seconds) * 1_000)));
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A reply cut short still tells its status.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function errorDescription(reply: unknown): string | undefined {
  const body = reply as { description?: unknown; message?: unknown } | undefined;
  const text = typeof body?.description === 'string' ? body.description : body?.message;
  return typeof text === 'string' ? clip(text, 200) : undefined;
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici puts the real reason (ECONNREFUSED...) in `cause`.
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
