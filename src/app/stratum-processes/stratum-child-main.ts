import { parseConfig } from '../../config/load-config.js';
import { createLogger, type Logger } from '../../log/logger.js';
import { RpcCallFanout } from '../../rpc/rpc-call-observer.js';
import { PoolNode, PoolNodeStartError } from '../pool-node.js';
import type { StratumRole } from '../stratum-role.js';
import { type ChildMessage, type ChildStats, isParentMessage, type ParentMessage } from './child-messages.js';
import { ChildRefusalReports } from './child-refusal-reports.js';
import { ParentConnectionAdmission } from './parent-admission.js';
import { ParentBanRegistry } from './parent-ban-registry.js';

/**
 * Entry of a stratum child process (StratumProcessGroup forks it with Node cluster; the stratum
 * ports are shared through the parent). It says it is waiting, takes its config from the parent's
 * `start`, runs a stratum-only PoolNode and reports its numbers; its ban registry is the parent's
 * (ParentBanRegistry), and the parent decides whether a new connection may open (the caps are per
 * host); the peers it refuses go to the parent, which drops floods on the listening sockets it
 * holds (ChildRefusalReports). Each attempt of its RPC calls goes to the parent as it ends (the pool's RPC metrics are
 * there). It stops on the parent's `stop`, on SIGINT/SIGTERM, or when the parent is gone.
 */

let node: PoolNode | null = null;
/** Aborted by stop(): a stop while the node waits for its first template ends that start cleanly. */
const startAbort = new AbortController();
/** Settles when PoolNode.start does (it has then stopped what it started, if it failed). */
let nodeStarted: Promise<unknown> = Promise.resolve();
let logger: Logger | null = null;
let stopping: Promise<void> | null = null;
let statsTimer: NodeJS.Timeout | undefined;
let bans: ParentBanRegistry | null = null;
/** This child's refusals, reported to the parent (none with floodDrop.refusals 0). */
let refusals: ChildRefusalReports | null = null;
/** The host-wide connection caps, counted by the parent. */
const admission = new ParentConnectionAdmission((message) => {
  if (!process.connected || process.send === undefined) return false;
  // A channel closing under the send is the 'disconnect' below: the process stops anyway.
  process.send(message, () => {});
  return true;
});

/** This process's RPC calls, each one sent to the parent's metrics (a few per found block or alias login). */
const rpcCalls = new RpcCallFanout();
rpcCalls.listen((service, call) => void send({ kind: 'rpc-call', service, call }));

/** Resolves once the message is handed to the channel (or at once without a parent). */
function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected || process.send === undefined) resolve();
    else process.send(message, () => resolve());
  });
}

function statsOf(role: StratumRole): ChildStats {
  return {
    stratum: role.server.metrics(),
    backend: role.backend.metrics,
    verifier: role.verifier.metrics(),
    ledger: role.ledger.metrics(),
  };
}

async function start(message: Extract<ParentMessage, { kind: 'start' }>): Promise<void> {
  try {
    const config = parseConfig(message.config);
    logger = createLogger(config.log).child({ stratumProcess: message.index, nodeId: config.pool.nodeId });
    logger.level = message.logLevel;
    const banLogger = logger;
    bans = new ParentBanRegistry(
      { ipv6PrefixLength: config.stratum.ipv6PrefixLength, exemptIps: config.stratum.bans.exemptIps },
      {
        send: (banMessage) => void send(banMessage),
        onListenerError: (error) => banLogger.error({ err: error }, 'a ban change listener failed'),
      },
    );
    if (config.floodDrop.refusals > 0) refusals = new ChildRefusalReports((report) => void send(report));
    const starting = PoolNode.start(config, {
      logger,
      ...(message.tls ? { tls: message.tls } : {}),
      bans,
      stratumChild: { admission, ...(refusals === null ? {} : { floodDrops: refusals }) },
      rpcCalls,
      shutdown: startAbort.signal,
      // The parent's start timeout ends here: the wait for the template has no limit.
      onAwaitingFirstTemplate: () => void send({ kind: 'booted' }),
    });
    nodeStarted = starting.catch(() => undefined);
    node = await starting;
  } catch (error) {
    // Asked to stop while starting: stop() is under way.
    if (error instanceof PoolNodeStartError && error.code === 'STOPPED_WHILE_STARTING') return;
    logger?.error({ err: error }, 'stratum process could not start');
    await send({ kind: 'start-failed', message: (error as Error).message });
    await stop(1);
    return;
  }
  const role = node.stratumRole;
  if (role === null) throw new Error('a stratum child runs the stratum role');
  void send({ kind: 'ready', listening: role.server.listening(), stats: statsOf(role) });
  statsTimer = setInterval(
    () => void send({ kind: 'stats', stats: statsOf(role) }),
    message.snapshotIntervalMs,
  );
  statsTimer.unref();
  void node.failed().then((error) => {
    logger?.fatal({ err: error }, 'stratum process cannot go on');
    void stop(1);
  });
}

function stop(exitCode: number): Promise<void> {
  stopping ??= (async () => {
    clearInterval(statsTimer);
    startAbort.abort();
    await nodeStarted;
    admission.close();
    refusals?.close();
    await node
      ?.stop()
      .catch((error: unknown) => logger?.error({ err: error }, 'stopping the stratum process failed'));
    logger?.flush();
    process.exit(exitCode);
  })();
  return stopping;
}

process.on('message', (message: unknown) => {
  if (!isParentMessage(message)) return;
  switch (message.kind) {
    case 'start':
      if (node === null && stopping === null) void start(message);
      return;
    case 'adopt-ban':
      bans?.adopt(message.entry);
      return;
    case 'unban':
      bans?.lift(message.ip);
      return;
    case 'admission':
      admission.answer(message.requestId, message.ip, message.verdict);
      return;
    case 'stop':
      void stop(0);
      return;
  }
});
// The parent stops the children in order; a terminal's Ctrl-C or a service manager's SIGTERM to
// the whole group must not cut this one short, so it closes its miners itself, gracefully.
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
// Without the parent there is no one to restart or aggregate this process. Node's cluster code ends
// a worker whose parent vanished at once (shares already answered OK are in Redis); after an
// orderly disconnect this stops gracefully.
process.on('disconnect', () => void stop(0));
void send({ kind: 'waiting' });
