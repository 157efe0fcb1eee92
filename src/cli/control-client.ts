import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Client } from 'net-ipc';
import { controlConfigSchema, defaultControlSocketPaths } from '../config/control-schema.js';
import { ConfigError, describeIssues, readConfigJson } from '../config/load-config.js';
import { ControlError, isWireCode } from '../servers/control/control-errors.js';
import {
  CONTROL_PROTOCOL_VERSION,
  type ControlProgress,
  type ControlRequestBody,
  type ControlRequestType,
  type ControlResultMap,
  controlProgressMessageSchema,
  controlReplyEnvelopeSchema,
} from '../servers/control/control-protocol.js';

export interface ControlClientOptions {
  readonly socketPath: string;
  /** Longest silence from the pool while a request is open (progress events reset it). */
  readonly idleTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
}

export interface ControlRequestOptions {
  readonly onProgress?: (progress: ControlProgress) => void;
}

const DEFAULT_IDLE_TIMEOUT_MS = 15_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/**
 * The CLI's side of the control socket. Connects once, sends typed requests, delivers progress
 * events, and turns every failure into a ControlError whose code says what the operator should
 * do (SOCKET_MISSING: is the pool running? PERMISSION_DENIED: run as the pool's user; ...).
 */
export class ControlClient {
  readonly #client: Client;
  readonly #idleTimeoutMs: number;
  readonly #socketPath: string;
  #closedBecause: ControlError | undefined;
  readonly #onClose = new Set<(error: ControlError) => void>();

  private constructor(client: Client, options: ControlClientOptions) {
    this.#client = client;
    this.#socketPath = options.socketPath;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    client.on('close', () => {
      const error = new ControlError('DISCONNECTED', undefined, { socketPath: this.#socketPath });
      this.#closedBecause = error;
      for (const listener of this.#onClose) listener(error);
    });
  }

  static async connect(options: ControlClientOptions): Promise<ControlClient> {
    const { socketPath } = options;
    await checkSocketFile(socketPath);
    const client = new Client({ path: socketPath, reconnect: false });
    // Without reconnect, net-ipc reports a failed connect only as a 'close' event.
    const failed = new Promise<never>((_, reject) => {
      client.once('close', (reason: unknown) => reject(connectError(reason, socketPath)));
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ControlError('TIMEOUT', 'connecting', { socketPath })),
        options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([client.connect(), failed, timeout]);
    } catch (error) {
      client.destroy();
      throw error;
    } finally {
      clearTimeout(timer);
      failed.catch(() => undefined);
    }
    client.removeAllListeners('close');
    return new ControlClient(client, options);
  }

  async request<T extends ControlRequestType>(
    body: ControlRequestBody<T> & { readonly type: T },
    options: ControlRequestOptions = {},
  ): Promise<ControlResultMap[T]> {
    if (this.#closedBecause !== undefined) throw this.#closedBecause;
    const id = randomUUID();
    return new Promise<ControlResultMap[T]>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const armIdleTimer = () => {
        clearTimeout(timer);
        timer = setTimeout(
          () => finish(new ControlError('TIMEOUT', `no word for ${this.#idleTimeoutMs} ms`)),
          this.#idleTimeoutMs,
        );
      };
      const onMessage = (message: unknown) => {
        const parsed = controlProgressMessageSchema.safeParse(message);
        if (!parsed.success || parsed.data.id !== id) return;
        armIdleTimer();
        options.onProgress?.(parsed.data.progress);
      };
      const onClose = (error: ControlError) => finish(error);
      const finish = (error: ControlError | null, result?: ControlResultMap[T]) => {
        clearTimeout(timer);
        this.#client.off('message', onMessage);
        this.#onClose.delete(onClose);
        if (error === null) resolve(result as ControlResultMap[T]);
        else reject(error);
      };
      this.#client.on('message', onMessage);
      this.#onClose.add(onClose);
      armIdleTimer();
      // Timeout 0: net-ipc's own timer cannot be re-armed by progress; the idle timer above can.
      this.#client.request({ v: CONTROL_PROTOCOL_VERSION, id, ...body }, 0).then(
        (reply: unknown) => {
          const envelope = controlReplyEnvelopeSchema.safeParse(reply);
          if (!envelope.success || envelope.data.id !== id) {
            finish(
              new ControlError('BAD_RESPONSE', 'not a control reply (is the pool a different version?)'),
            );
          } else if (envelope.data.ok) {
            finish(null, envelope.data.result as unknown as ControlResultMap[T]);
          } else {
            finish(remoteError(envelope.data.error));
          }
        },
        (error: unknown) => finish(new ControlError('DISCONNECTED', String(error))),
      );
    });
  }

  async close(): Promise<void> {
    this.#onClose.clear();
    await this.#client.close().catch(() => this.#client.destroy());
  }
}

/** Opens a client, runs `use`, and always closes it. */
export async function withControlClient<R>(
  options: ControlClientOptions,
  use: (client: ControlClient) => Promise<R>,
): Promise<R> {
  const client = await ControlClient.connect(options);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/**
 * Which socket a CLI command talks to: `--socket PATH`, else `control.socketPath` of
 * `--config FILE`, else the default path of the user running the CLI (the pool's default too).
 */
export function resolveSocketPath(flags: { readonly socket?: string; readonly config?: string }): string {
  if (flags.socket !== undefined) return flags.socket;
  if (flags.config === undefined) {
    const candidates = defaultControlSocketPaths();
    return candidates.find((path) => existsSync(path)) ?? candidates[0]!;
  }
  return controlSectionOf(flags.config).socketPath;
}

/**
 * The `control` section of a config file, validated by its own schema. Only this section is read,
 * so a CLI command reaching the socket does not depend on every other section being valid here.
 * An unusable file or section is a ConfigError, as for the commands that load the whole config.
 */
export function controlSectionOf(configPath: string): {
  readonly enabled: boolean;
  readonly socketPath: string;
} {
  const json = readConfigJson(configPath);
  const section = (json as { control?: unknown } | null)?.control ?? {};
  const parsed = controlConfigSchema.safeParse(section);
  if (!parsed.success) {
    const lines = describeIssues(parsed.error, 'control');
    throw new ConfigError(
      'CONFIG_INVALID',
      `invalid configuration in ${configPath}:\n  ${lines.join('\n  ')}`,
      { path: configPath, issues: lines },
    );
  }
  return parsed.data;
}

/**
 * Before connecting: the path must be a socket of ours, so nobody can pose as the pool. Root may
 * talk to a pool run as another user, but only through a socket in that user's own directory
 * that nobody else can add files to (a socket planted in /tmp is refused, root or not).
 */
async function checkSocketFile(socketPath: string): Promise<void> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(socketPath);
  } catch (error) {
    throw connectError(error, socketPath);
  }
  if (!info.isSocket()) {
    throw new ControlError('SOCKET_MISSING', `${socketPath} is not a socket`, { socketPath });
  }
  const uid = process.getuid?.();
  if (uid === undefined || info.uid === uid) return;
  const owners = `${socketPath} is owned by uid ${info.uid}, not by you (uid ${uid})`;
  if (uid !== 0) {
    throw new ControlError('SOCKET_NOT_OWNED', `${owners}: run this as the user that runs the pool`, {
      socketPath,
      ownerUid: info.uid,
    });
  }
  if (await inDirectoryOnlyItsOwnerWrites(socketPath, info.uid)) return;
  throw new ControlError(
    'SOCKET_NOT_OWNED',
    `${owners}, in a directory others could write to; refusing to talk to it`,
    { socketPath, ownerUid: info.uid },
  );
}

/** Whether the socket's directory belongs to the socket's owner (or root) and no one else may add files. */
async function inDirectoryOnlyItsOwnerWrites(socketPath: string, ownerUid: number): Promise<boolean> {
  const directory = await stat(dirname(socketPath)).catch(() => null);
  if (directory === null) return false;
  return (directory.uid === ownerUid || directory.uid === 0) && (directory.mode & 0o022) === 0;
}

/** The operator's reading of a connect failure. */
export function connectError(reason: unknown, socketPath: string): ControlError {
  const code = (reason as { code?: unknown } | null)?.code;
  const data = { socketPath };
  switch (code) {
    case 'ENOENT':
      return new ControlError(
        'SOCKET_MISSING',
        `${socketPath} (is the pool running with control.enabled? pass --socket PATH or --config FILE)`,
        data,
      );
    case 'EACCES':
    case 'EPERM':
      return new ControlError(
        'PERMISSION_DENIED',
        `${socketPath} (the socket is mode 0600: run this as the user that runs the pool)`,
        data,
      );
    case 'ECONNREFUSED':
      return new ControlError('SOCKET_STALE', `${socketPath} (the pool is not running, or crashed)`, data);
    default:
      return new ControlError(
        'DISCONNECTED',
        `${socketPath}: ${String((reason as Error | null)?.message ?? reason)}`,
        data,
      );
  }
}

function remoteError(body: { code: string; message: string; data: Record<string, unknown> }): ControlError {
  if (!isWireCode(body.code))
    return new ControlError('BAD_RESPONSE', `unknown error code ${body.code}`, body.data);
  const error = new ControlError(body.code, undefined, body.data);
  // The server's message already carries the catalogue text and its detail.
  error.message = body.message;
  return error;
}
