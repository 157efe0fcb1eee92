import type { Server } from 'node:net';
import { loadSupportedAddon } from '../../native-addon.js';

/** What build/Release/fuego_socket_filter.node exports (native/socket_filter.cc). */
interface SocketFilterAddon {
  attachFilter(fd: number, program: Uint32Array): void;
  detachFilter(fd: number): void;
  supported(): boolean;
}

/**
 * A listening socket known by its descriptor only: one that no net.Server of this process's code
 * holds (the cluster primary's, see primary-flood-drops.ts). `fd()` is read at each attach, and is
 * undefined once the socket is closed, so a descriptor number reused since is never filtered.
 */
export interface ListeningDescriptor {
  fd(): number | undefined;
}

/** What a drop program goes on: a listening server, or a listening socket's descriptor. */
export type FilteredListener = Server | ListeningDescriptor;

/** Attaches a drop program (drop-program.ts) to a listening socket, or takes it off. */
export interface ListenerFilter {
  /** Replaces the listener's program; false when it has no socket of its own to filter. */
  attach(listener: FilteredListener, program: Uint32Array): boolean;
  detach(listener: FilteredListener): void;
}

/**
 * The listening socket's descriptor: net.Server keeps it on its libuv handle. A server that a
 * cluster worker runs has none (the primary accepts for it), nor has one not listening.
 */
function listenerFd(listener: FilteredListener): number | undefined {
  const fd =
    'fd' in listener && typeof listener.fd === 'function'
      ? listener.fd()
      : (listener as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * The kernel filter for listening sockets, or a reason it is not available here (the addon
 * not built, or not Linux): the caller then refuses floods in Node as before.
 */
export function loadListenerFilter(
  fromUrl: string = import.meta.url,
): { filter: ListenerFilter } | { unavailable: string } {
  const loaded = loadSupportedAddon<SocketFilterAddon>('fuego_socket_filter.node', 'socket filters', fromUrl);
  if ('unavailable' in loaded) return loaded;
  const addon = loaded.addon;
  return {
    filter: {
      attach(listener, program) {
        const fd = listenerFd(listener);
        if (fd === undefined) return false;
        addon.attachFilter(fd, program);
        return true;
      },
      detach(listener) {
        const fd = listenerFd(listener);
        if (fd !== undefined) addon.detachFilter(fd);
      },
    },
  };
}
