import { createHmac, timingSafeEqual } from 'node:crypto';

/** Headers of every webhook request. */
export const WEBHOOK_HEADERS = {
  event: 'x-fuego-pool-event',
  /** Same on every retry of one notification: receivers deduplicate by it. */
  delivery: 'x-fuego-pool-delivery',
  /** Epoch ms of this attempt; signed, so a captured request cannot be replayed later. */
  timestamp: 'x-fuego-pool-timestamp',
  /** `sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`; only when a secret is set. */
  signature: 'x-fuego-pool-signature',
} as const;

export function signWebhook(secret: string, timestampMs: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestampMs}.${body}`).digest('hex')}`;
}

/**
 * What a receiver runs (and the tests): the signature matches the raw body and timestamp, and the
 * timestamp is within `toleranceMs` of now. Constant-time comparison.
 */
export function verifyWebhookSignature(input: {
  readonly secret: string;
  readonly body: string;
  readonly timestamp: string | undefined;
  readonly signature: string | undefined;
  readonly nowMs: number;
  readonly toleranceMs?: number;
}): boolean {
  const { timestamp, signature } = input;
  if (timestamp === undefined || signature === undefined || !/^\d{1,16}$/.test(timestamp)) return false;
  const timestampMs = Number(timestamp);
  if (Math.abs(input.nowMs - timestampMs) > (input.toleranceMs ?? 300_000)) return false;
  const expected = Buffer.from(signWebhook(input.secret, timestampMs, input.body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
