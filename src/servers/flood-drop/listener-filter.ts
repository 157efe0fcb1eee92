import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { findPackageRoot } from '../../package-root.js';

/** What build/Release/fuego_socket_filter.node exports (native/socket_filter.cc). */
interface SocketFilterAddon {
  attachFilter(fd: number, program: Uint32Array): void;
  detachFilter(fd: number): void;
  supported(): boolean;
}

/** Attaches a drop program (drop-program.ts) to a listening server's socket, or takes it off. */
export interface ListenerFilter {
  /** Replaces the server's program; false when the server has no socket of its own to filter. */
  attach(server: Server, program: Uint32Array): boolean;
  detach(server: Server): void;
}

/**
 * The listening socket's descriptor: net.Server keeps it on its libuv handle. A server that a
 * cluster worker runs has none (the primary accepts for it), nor has one not listening.
 */
function listenerFd(server: Server): number | undefined {
  const handle = (server as unknown as { _handle?: { fd?: unknown } | null })._handle;
  const fd = handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * The kernel filter for listening sockets, or a reason it is not available here (the addon
 * not built, or not Linux): the caller then refuses floods in Node as before.
 */
export function loadListenerFilter(
  fromUrl: string = import.meta.url,
): { filter: ListenerFilter } | { unavailable: string } {
  const path = join(findPackageRoot(fromUrl), 'build', 'Release', 'fuego_socket_filter.node');
  if (!existsSync(path)) return { unavailable: `native addon not built (${path} missing)` };
  let addon: SocketFilterAddon;
  try {
    addon = createRequire(import.meta.url)(path) as SocketFilterAddon;
  } catch (error) {
    return { unavailable: `native addon failed to load: ${(error as Error).message}` };
  }
  if (!addon.supported()) return { unavailable: `socket filters are not supported on ${process.platform}` };
  return {
    filter: {
      attach(server, program) {
        const fd = listenerFd(server);
        if (fd === undefined) return false;
        addon.attachFilter(fd, program);
        return true;
      },
      detach(server) {
        const fd = listenerFd(server);
        if (fd !== undefined) addon.detachFilter(fd);
      },
    },
  };
}
