import { isAbsolute } from 'node:path';
import { z } from 'zod';

/**
 * sun_path holds 108 bytes on Linux and 104 on macOS, both with the terminating NUL; 100 leaves
 * room everywhere and fails at config time instead of at bind().
 */
export const MAX_SOCKET_PATH_BYTES = 100;

/**
 * Default control socket: one per Unix user in /tmp, so two operators' pools on one host do not
 * collide, and the CLI run by the same user finds it without configuration. Literally /tmp (not
 * os.tmpdir()) because the service and an operator's shell often have different TMPDIRs. A
 * socket someone else planted there is refused by both ends (owner check), never trusted.
 */
export function defaultControlSocketPath(uid: number | undefined = process.getuid?.()): string {
  return uid === undefined ? '/tmp/fuego-pool.sock' : `/tmp/fuego-pool-${uid}.sock`;
}

export const controlSocketPathSchema = z
  .string()
  .min(1)
  .refine(
    (path) => isAbsolute(path),
    'must be an absolute path (the CLI and the pool may run from different directories)',
  )
  .refine(
    (path) => Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES,
    `at most ${MAX_SOCKET_PATH_BYTES} bytes (a Unix socket path limit)`,
  );

/**
 * `control` config section: the operator socket (`fuego-pool status|ban|unban|bans|miners|payout
 * --now`). Access control is the file mode: the socket is created 0600, so only the user running
 * the pool (and root) can connect. Its directory must exist.
 */
export const controlConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  socketPath: controlSocketPathSchema.default(() => defaultControlSocketPath()),
  /** Window of the hashrates in `status` and `miners` (the API's default window). */
  hashrateWindowMs: z.number().int().min(60_000).max(3_600_000).default(600_000),
});

export type ControlConfig = z.infer<typeof controlConfigSchema>;
