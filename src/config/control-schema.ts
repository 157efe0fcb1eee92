import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { apiOptionsFields } from './api-schema.js';

/**
 * sun_path holds 108 bytes on Linux and 104 on macOS, both with the terminating NUL; 100 leaves
 * room everywhere and fails at config time instead of at bind().
 */
export const MAX_SOCKET_PATH_BYTES = 100;

/** Where a default socket may live, most specific first (see defaultControlSocketPaths). */
export interface SocketPlaces {
  readonly uid: number | undefined;
  /** `$XDG_RUNTIME_DIR`: the user's private runtime directory (0700, made by the login manager). */
  readonly runtimeDir: string | undefined;
  /** Whether /run/fuego-pool exists and belongs to `uid` (systemd's RuntimeDirectory for the service user). */
  readonly ownsRunDir: boolean;
}

const RUN_DIR = '/run/fuego-pool';
const SOCKET_NAME = 'control.sock';

/** The places of this process, read from its environment and the file system. */
export function socketPlacesHere(): SocketPlaces {
  const uid = process.getuid?.();
  const runtimeDir = process.env['XDG_RUNTIME_DIR'];
  let ownsRunDir = false;
  try {
    ownsRunDir = uid !== undefined && statSync(RUN_DIR).uid === uid;
  } catch {
    // no /run/fuego-pool: fine
  }
  return { uid, runtimeDir: runtimeDir && isAbsolute(runtimeDir) ? runtimeDir : undefined, ownsRunDir };
}

/**
 * The default control socket paths, in order: the pool binds the first; the CLI talks to the first
 * that exists (a service and an operator's shell often differ in XDG_RUNTIME_DIR). Each lives in
 * a directory private to its user (created 0700 by the pool when missing), never directly in
 * /tmp, where any local user could plant a file or a socket posing as the pool:
 * - root: /run/fuego-pool/control.sock;
 * - /run/fuego-pool when it belongs to this user (the systemd unit's RuntimeDirectory);
 * - $XDG_RUNTIME_DIR/fuego-pool/control.sock;
 * - /tmp/fuego-pool-<uid>/control.sock (the directory must be this user's and 0700).
 */
export function defaultControlSocketPaths(places: SocketPlaces = socketPlacesHere()): string[] {
  const { uid, runtimeDir, ownsRunDir } = places;
  if (uid === 0) return [join(RUN_DIR, SOCKET_NAME)];
  const paths: string[] = [];
  if (ownsRunDir) paths.push(join(RUN_DIR, SOCKET_NAME));
  if (runtimeDir !== undefined) paths.push(join(runtimeDir, 'fuego-pool', SOCKET_NAME));
  paths.push(join('/tmp', uid === undefined ? 'fuego-pool' : `fuego-pool-${uid}`, SOCKET_NAME));
  return paths.filter((path) => Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES);
}

/** The path the pool binds by default (the first of defaultControlSocketPaths). */
export function defaultControlSocketPath(places: SocketPlaces = socketPlacesHere()): string {
  return defaultControlSocketPaths(places)[0]!;
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
 * --now`). Access control is the file mode: the socket is created 0600 in a directory private to
 * the pool's user (created 0700 when missing), so only that user (and root) can connect.
 */
export const controlConfigSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe(
      'Open the operator socket; false: `status`, `ban`, `miners` cannot reach the pool, and `payout`/`wallet optimize` run in their own process.',
    ),
  socketPath: controlSocketPathSchema
    .default(() => defaultControlSocketPath())
    .describe(
      'The operator socket. Default: /run/fuego-pool/control.sock as root, or when /run/fuego-pool belongs to the user (the systemd unit), else $XDG_RUNTIME_DIR/fuego-pool/control.sock, else /tmp/fuego-pool-<uid>/control.sock. Its directory is created 0700 when missing; one others may add files to is refused.',
    ),
  hashrateWindowMs: apiOptionsFields.shape.hashrateWindowMs.describe(
    "Window of the hashrates in `status` and `miners` (the API's default window).",
  ),
});

export type ControlConfig = z.infer<typeof controlConfigSchema>;
