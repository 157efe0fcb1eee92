/**
 * The honest side of the abuse benchmark, in its own process (forked by run.ts): N miners, each
 * from its own loopback address (127.1.x.y), sending `keepalived` every KEEPALIVE_MS and a valid
 * share (hashed here with the native cn/upx2) every SHARE_MS, both with random phase. Round trips
 * are recorded under the phase run.ts names (baseline, then each attack) and reported on request.
 */
import { loadNativeHasher } from '../../src/pow/native.js';
import { difficultyOneShare } from '../stratum/difficulty-one-share.js';
import { percentile, round } from '../stratum/measure-process.js';
import { connectMiners, type LoggedInMiner } from '../stratum/simulated-miners.js';
import { nowMs, type WireJob } from '../stratum/stratum-client.js';
import type { HonestCommand, HonestEvent, HonestPhaseStats, Target } from './messages.js';

const KEEPALIVE_MS = 5_000;
const SHARE_MS = 10_000;
const TICK_MS = 10;

interface Miner {
  readonly logged: LoggedInMiner;
  job: WireJob;
  nonce: number;
  nextKeepaliveMs: number;
  nextShareMs: number;
}

interface PhaseSamples {
  readonly keepalive: number[];
  readonly share: number[];
  failures: number;
}

const hasher = loadNativeHasher({ portable: false });
const phases = new Map<string, PhaseSamples>();
let phase = 'warm-up';
let miners: Miner[] = [];
let ticker: NodeJS.Timeout | undefined;

function samples(): PhaseSamples {
  let current = phases.get(phase);
  if (current === undefined) {
    current = { keepalive: [], share: [], failures: 0 };
    phases.set(phase, current);
  }
  return current;
}

function sourceAddress(index: number): string {
  return `127.1.${Math.floor(index / 250)}.${(index % 250) + 1}`;
}

async function start(target: Target, count: number): Promise<void> {
  const logged = await connectMiners(0, count, {
    port: target.stratumPort,
    login: (index) => `${target.address}.honest${index}+1`,
    batchSize: 100,
    localAddresses: Array.from({ length: count }, (_, i) => sourceAddress(i)),
  });
  const now = nowMs();
  miners = logged.map((m) => {
    const miner: Miner = {
      logged: m,
      job: m.job,
      nonce: 0,
      nextKeepaliveMs: now + Math.random() * KEEPALIVE_MS,
      nextShareMs: now + Math.random() * SHARE_MS,
    };
    m.client.onJob = (notification) => {
      miner.job = (JSON.parse(notification.line) as { params: WireJob }).params;
    };
    return miner;
  });
  ticker = setInterval(tick, TICK_MS);
}

function tick(): void {
  const now = nowMs();
  for (const miner of miners) {
    if (miner.logged.client.closed) continue;
    if (now >= miner.nextKeepaliveMs) {
      miner.nextKeepaliveMs = now + KEEPALIVE_MS;
      void timed(miner, 'keepalived', { id: miner.logged.sessionId }, 'keepalive');
    }
    if (now >= miner.nextShareMs) {
      miner.nextShareMs = now + SHARE_MS;
      void timed(miner, 'submit', share(miner), 'share');
    }
  }
}

/** A share at difficulty 1 on the miner's current job, with its next nonce. */
function share(miner: Miner): object {
  return { id: miner.logged.sessionId, ...difficultyOneShare(hasher, miner.job, miner.nonce++) };
}

async function timed(
  miner: Miner,
  method: string,
  params: object,
  kind: 'keepalive' | 'share',
): Promise<void> {
  const at = samples();
  const sent = nowMs();
  const reply = await miner.logged.client.request(method, params);
  if (reply.error !== null) {
    at.failures++;
    return;
  }
  at[kind].push(nowMs() - sent);
}

function report(): HonestPhaseStats[] {
  return [...phases].map(([name, s]) => {
    const keepalive = [...s.keepalive].sort((a, b) => a - b);
    const shares = [...s.share].sort((a, b) => a - b);
    return {
      phase: name,
      keepalives: keepalive.length,
      keepaliveP50Ms: round(percentile(keepalive, 50), 2),
      keepaliveP99Ms: round(percentile(keepalive, 99), 2),
      shares: shares.length,
      shareP50Ms: round(percentile(shares, 50), 2),
      shareP99Ms: round(percentile(shares, 99), 2),
      failures: s.failures,
    };
  });
}

function send(event: HonestEvent): void {
  process.send?.(event);
}

process.on('message', (command: HonestCommand) => {
  switch (command.type) {
    case 'start':
      start(command.target, command.miners).then(
        () => send({ type: 'ready', miners: miners.length }),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
      return;
    case 'phase':
      phase = command.name;
      return;
    case 'report':
      send({ type: 'report', phases: report() });
      return;
    case 'stop':
      if (ticker) clearInterval(ticker);
      for (const miner of miners) miner.logged.client.destroy();
      process.disconnect();
      return;
  }
});
