import { z } from 'zod';
import { canonicalIp } from './canonical-ip.js';

/** Building blocks shared by the config section schemas. */

export const host = z.string().min(1);
export const port = z.number().int().min(1).max(65535);
/** Timeout of one RPC call to a fuegod (the pool's own, or a witness). */
export const daemonTimeoutMs = z.number().int().min(100).max(120_000).default(10_000);
export const positiveInt = z.number().int().min(1);
export const integerIn = (min: number, max: number) => z.number().int().min(min).max(max);

/** Node runs a timer longer than this after 1 ms instead (TimeoutOverflowWarning). */
const LONGEST_TIMER_MS = 2_147_483_647;
/** A duration a timer waits for, in ms: positive, and one Node can wait. */
export const timerMs = positiveInt.max(LONGEST_TIMER_MS, {
  message: `must be at most ${LONGEST_TIMER_MS} (the longest a timer can wait, about 24.8 days)`,
});

/** A section whose every key has a default: absent means "all defaults" (parsed from `{}`). */
export function section<S extends z.ZodType<unknown, object>>(schema: S) {
  return schema.prefault({} as z.input<S>);
}

/**
 * An IP as the servers compare it (canonicalIp: IPv6 compressed and lower-case, IPv4-mapped as
 * IPv4), so that "2001:DB8::1" in a config file matches the client 2001:db8::1. With `networks`,
 * an IPv6 network "2001:db8:1:2::/64" too. Anything else is refused at start: a typo would
 * otherwise never match and silently exempt no one.
 */
export function ipText(options: { readonly networks: boolean }) {
  const parse = (text: string): string | null => {
    const ip = canonicalIp(text.trim());
    return ip === null || (!options.networks && ip.includes('/')) ? null : ip;
  };
  // A check and an overwrite rather than a transform: the config reference keeps its defaults.
  return z
    .string()
    .superRefine((text, ctx) => {
      if (parse(text) !== null) return;
      ctx.addIssue({
        code: 'custom',
        message: options.networks
          ? `"${text}" is not an IP address or an IPv6 network ("2001:db8:1:2::/64")`
          : `"${text}" is not an IP address`,
      });
    })
    .overwrite((text) => parse(text) ?? text);
}

/**
 * A certificate's SHA-256 fingerprint: 64 hex digits, either case, with or without the colons
 * `openssl x509 -fingerprint -sha256` prints; kept as lowercase hex without colons.
 */
export const certificateFingerprintSha256 = z
  .string()
  .regex(/^(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){31})$/, {
    message: 'must be a SHA-256 fingerprint: 64 hex digits, optionally in colon-separated pairs',
  })
  // An overwrite rather than a transform: the config reference keeps its defaults (see ipText).
  .overwrite((text) => text.replaceAll(':', '').toLowerCase());

/**
 * How the pool checks the certificate of an RPC server it asks over HTTPS (a TLS proxy in front
 * of fuegod or walletd): pinned by its fingerprint, or signed by a given CA, or by a system CA.
 */
export const rpcTls = z
  .strictObject({
    fingerprint: certificateFingerprintSha256
      .optional()
      .describe(
        'SHA-256 fingerprint of the certificate the server must present (`openssl x509 -noout -fingerprint -sha256 -in cert.pem`): it is pinned, so a self-signed certificate works and neither a CA nor the name is checked. A connection presenting another is closed before any request is written to it.',
      ),
    caFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        "PEM file of the CA that signed the server's certificate, used instead of the system's CAs; the certificate must name `host`.",
      ),
  })
  .refine((tls) => tls.fingerprint === undefined || tls.caFile === undefined, {
    message: 'give fingerprint or caFile, not both: a pinned certificate needs no CA',
  });
