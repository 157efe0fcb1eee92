/**
 * The attacker of the abuse benchmark, in its own process (forked by run.ts): each attack runs at
 * full speed for the time it is given, from one loopback source address, and reports how many of
 * its requests the pool served (did the work for) before a limit stopped it.
 */
import { randomBytes } from 'node:crypto';
import { Agent, get } from 'node:http';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { encodeAddress } from '../../src/fuego/address.js';
import { StratumClient } from '../stratum/stratum-client.js';
import type { AttackerCommand, AttackerEvent, AttackName, AttackResult, Target } from './messages.js';

/** Pending submits per connection: the stratum server's default maxPendingRequests. */
const PENDING_SUBMITS = 32;

interface Tally {
  sent: number;
  served: number;
  servedBeforeLimit: number;
  firstLimit: string;
}

interface Attack {
  readonly target: Target;
  readonly source: string;
  readonly until: number;
  readonly tally: Tally;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function served(tally: Tally): void {
  tally.served++;
  if (tally.firstLimit === 'none') tally.servedBeforeLimit++;
}

function limited(tally: Tally, why: string): void {
  if (tally.firstLimit === 'none') tally.firstLimit = why;
}

/** `workers` loops of `body` until the attack's time is up. */
async function inParallel(attack: Attack, workers: number, body: () => Promise<void>): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < attack.until) await body();
    }),
  );
}

/**
 * How long a connect may take: at most a second, and never past the attack's end. A peer the
 * kernel drops gets no answer, and an attacker waits for none; without a bound each connect would
 * wait for the kernel's SYN retries (~2 min) and hold the phase open long after its time.
 */
function connectTimeoutMs(attack: Attack): number {
  return Math.max(1, Math.min(1000, attack.until - Date.now()));
}

/** A payout address whose keys need the full (costly) curve check: fresh each time. */
function freshAddress(): string {
  const key = () => randomBytes(32).toString('hex');
  return encodeAddress({ spendPublicKey: key(), viewPublicKey: key() }, { checkKeys: false });
}

/** Connections opened and held without a login: the per-IP cap should refuse them. */
function connectionFlood(attack: Attack): Promise<void> {
  return holdConnections(attack, attack.target.stratumPort, 'connection refused (per-IP cap)');
}

/** Idle connections to the API, held: the per-peer connection cap should refuse them. */
function apiConnectionHold(attack: Attack): Promise<void> {
  return holdConnections(attack, attack.target.apiPort, 'connection refused (per-peer cap)');
}

/**
 * 32 loops opening connections to `port`, each kept when the pool has not closed it after 100 ms.
 * Served are the connections still open when the attack ends: under load a reset at accept can
 * reach the attacker after its 100 ms look, so counting at the look alone overstated what the
 * pool let it hold.
 */
async function holdConnections(attack: Attack, port: number, refusal: string): Promise<void> {
  const held: Socket[] = [];
  await inParallel(attack, 32, async () => {
    attack.tally.sent++;
    const outcome = await new Promise<'open' | 'closed'>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1', localAddress: attack.source });
      const timer = setTimeout(() => socket.connecting && socket.destroy(), connectTimeoutMs(attack));
      socket.on('error', () => resolve('closed'));
      socket.on('close', () => resolve('closed'));
      socket.on('connect', () => {
        clearTimeout(timer);
        setTimeout(() => resolve(socket.destroyed ? 'closed' : 'open'), 100);
      });
      held.push(socket);
    });
    if (outcome === 'open') served(attack.tally);
    else limited(attack.tally, refusal);
  });
  // Late resets reach the attacker before it counts.
  await sleep(500);
  const stillOpen = held.filter((socket) => !socket.destroyed).length;
  attack.tally.served = stillOpen;
  attack.tally.servedBeforeLimit = Math.min(attack.tally.servedBeforeLimit, stillOpen);
  for (const socket of held) socket.destroy();
}

/** Logins with ever new addresses (each a ~1.4 ms key check), reconnecting when closed. */
async function loginFlood(attack: Attack): Promise<void> {
  await inParallel(attack, 16, async () => {
    const client = await StratumClient.connect(
      attack.target.stratumPort,
      attack.source,
      connectTimeoutMs(attack),
    ).catch(() => undefined);
    if (client === undefined) {
      limited(attack.tally, 'connect failed');
      return;
    }
    while (!client.closed && Date.now() < attack.until) {
      attack.tally.sent++;
      const outcome = await client.login(freshAddress());
      if (outcome.ok || /Invalid address/.test(outcome.message)) served(attack.tally);
      else limited(attack.tally, outcome.message);
    }
    client.destroy();
  });
}

/** WebSocket feed connections subscribing to ever new addresses. */
async function feedFlood(attack: Attack): Promise<void> {
  const url = `ws://127.0.0.1:${attack.target.apiPort}/api/live`;
  await inParallel(attack, 16, async () => {
    attack.tally.sent++;
    await new Promise<void>((resolve) => {
      const socket = new WebSocket(url, {
        localAddress: attack.source,
        handshakeTimeout: connectTimeoutMs(attack),
      });
      let open = false;
      const subscribe = () => {
        if (Date.now() >= attack.until) {
          socket.close();
          return;
        }
        attack.tally.sent++;
        socket.send(JSON.stringify({ op: 'subscribe', address: freshAddress() }));
      };
      socket.on('open', () => {
        open = true;
        served(attack.tally);
        subscribe();
      });
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { type: string; data?: { code?: string } };
        if (message.type === 'subscribed') served(attack.tally);
        else if (message.type === 'error') {
          const code = message.data?.code ?? 'error';
          if (code === 'INVALID_ADDRESS') served(attack.tally);
          else limited(attack.tally, code);
        } else return;
        subscribe();
      });
      socket.on('unexpected-response', (_request, response) => {
        limited(attack.tally, `HTTP ${response.statusCode}`);
        socket.terminate();
      });
      socket.on('error', () => undefined);
      socket.on('close', (code) => {
        if (open && Date.now() < attack.until) limited(attack.tally, `closed ${code}`);
        resolve();
      });
    });
  });
}

/** The costly reads of the API: deep payment pages, long address strings. */
async function expensiveReads(attack: Attack): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 32, localAddress: attack.source });
  const paths = [
    '/api/payments?page=9&limit=100',
    '/api/payments?page=10000&limit=100',
    `/get_payments?time=${Math.floor(Date.now() / 1000)}`,
    `/stats_address?address=${'x'.repeat(256)}`,
  ];
  let next = 0;
  await inParallel(attack, 32, async () => {
    attack.tally.sent++;
    const path = paths[next++ % paths.length]!;
    const status = await new Promise<number>((resolve) => {
      const request = get({ host: '127.0.0.1', port: attack.target.apiPort, path, agent }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('error', () => resolve(0));
    });
    if (status === 200) served(attack.tally);
    else limited(attack.tally, `HTTP ${status}`);
  });
  agent.destroy();
}

/** Connections keeping 32 bogus-result submits pending each, reconnecting when closed. */
async function submitStorm(attack: Attack): Promise<void> {
  await inParallel(attack, 64, async () => {
    const client = await StratumClient.connect(
      attack.target.stratumPort,
      attack.source,
      connectTimeoutMs(attack),
    ).catch(() => undefined);
    const login = client && (await client.login(`${attack.target.address}.storm+1`));
    if (client === undefined || login === undefined || !login.ok) {
      limited(attack.tally, login && !login.ok ? login.message : 'connect refused');
      client?.destroy();
      await sleep(10);
      return;
    }
    let nonce = randomBytes(4).readUInt32LE(0);
    const one = async (): Promise<void> => {
      while (!client.closed && Date.now() < attack.until) {
        attack.tally.sent++;
        const reply = await client.request('submit', {
          id: login.sessionId,
          job_id: login.job.job_id,
          nonce: (nonce++ >>> 0).toString(16).padStart(8, '0'),
          result: 'ab'.repeat(32),
        });
        if (reply.error?.message === 'Rejected share: invalid result') served(attack.tally);
        else limited(attack.tally, reply.error?.message ?? 'accepted?');
      }
    };
    await Promise.all(Array.from({ length: PENDING_SUBMITS }, one));
    client.destroy();
  });
}

const ATTACK_BODIES: Record<AttackName, (attack: Attack) => Promise<void>> = {
  'connection-flood': connectionFlood,
  'api-connection-hold': apiConnectionHold,
  'login-flood': loginFlood,
  'feed-flood': feedFlood,
  'expensive-reads': expensiveReads,
  'submit-storm': submitStorm,
};

async function run(command: Extract<AttackerCommand, { type: 'attack' }>): Promise<AttackResult> {
  const tally: Tally = { sent: 0, served: 0, servedBeforeLimit: 0, firstLimit: 'none' };
  const cpuBefore = process.cpuUsage();
  await ATTACK_BODIES[command.name]({
    target: command.target,
    source: command.source,
    until: Date.now() + command.durationMs,
    tally,
  });
  const cpu = process.cpuUsage(cpuBefore);
  return { name: command.name, ...tally, attackerCpuMs: Math.round((cpu.user + cpu.system) / 1000) };
}

process.on('message', (command: AttackerCommand) => {
  if (command.type === 'stop') {
    process.disconnect();
    return;
  }
  run(command).then(
    (result) => process.send?.({ type: 'result', result } satisfies AttackerEvent),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
