import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  WITNESS_TIP_SLACK_BLOCKS,
  type Witness,
  WitnessChainCheck,
} from '../../../src/leader/unlocker/witness-chain-check.js';
import { DaemonClient, DaemonRpcCode } from '../../../src/rpc/daemon-client.js';
import { RpcError } from '../../../src/rpc/rpc-error.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { until } from '../../helpers/until.js';

/** The pool daemon's chain: `count` blocks, the block at each height named `main-<height>`. */
function poolDaemon(count: number) {
  const asked: number[] = [];
  return {
    asked,
    getBlockCount: async () => count,
    getBlockHash: async (height: number) => {
      asked.push(height);
      return `main-${height}`;
    },
  };
}

/** A witness answering with `answer(height)` (a hash, or a thrown error). */
function witness(name: string, answer: (height: number) => string): Witness & { asked: number[] } {
  const asked: number[] = [];
  return {
    name,
    asked,
    chain: {
      getBlockHash: async (height: number) => {
        asked.push(height);
        return answer(height);
      },
    },
  };
}

const agreeing = (name: string) => witness(name, (height) => `main-${height}`);
const onAFork = (name: string) => witness(name, (height) => `fork-${height}`);
const unreachable = (name: string) =>
  witness(name, () => {
    throw new RpcError('RPC_UNREACHABLE', 'connect ECONNREFUSED 127.0.0.1:1');
  });
const behind = (name: string) =>
  witness(name, (height) => {
    throw new RpcError('RPC_ERROR', `To big height: ${height}`, { rpcCode: DaemonRpcCode.TOO_BIG_HEIGHT });
  });

function checkWith(witnesses: Witness[], options: { count?: number; confirmDepth?: number } = {}) {
  const logs = captureLogs('info');
  const daemon = poolDaemon(options.count ?? 100);
  const check = new WitnessChainCheck(
    { confirmDepth: options.confirmDepth ?? 10 },
    { daemon, witnesses, logger: logs.logger },
  );
  return { check, daemon, logs };
}

describe('WitnessChainCheck', () => {
  it('trusts the chain when every witness holds the same block a little below the tip', async () => {
    const [a, b] = [agreeing('a:1'), agreeing('b:1')];
    const { check, daemon } = checkWith([a, b], { count: 100 });
    expect(await check.distrust()).toBeNull();
    const height = 99 - WITNESS_TIP_SLACK_BLOCKS;
    expect(daemon.asked).toEqual([height]);
    expect(a.asked).toEqual([height]);
    expect(b.asked).toEqual([height]);
  });

  it('asks at the tip with confirmDepth 1 and one below it with 2: never above what a run decides', async () => {
    const one = agreeing('a:1');
    await checkWith([one], { count: 100, confirmDepth: 1 }).check.distrust();
    expect(one.asked).toEqual([99]);
    const two = agreeing('a:1');
    await checkWith([two], { count: 100, confirmDepth: 2 }).check.distrust();
    expect(two.asked).toEqual([98]);
  });

  it('an eclipse: a witness that holds another block there holds the run, logged as an error once', async () => {
    const { check, logs } = checkWith([agreeing('a:1'), onAFork('b:1')]);
    expect(await check.distrust()).toBe('witness-disagrees');
    expect(await check.distrust()).toBe('witness-disagrees');
    const errors = logs.records.filter((record) => record['level'] === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      reason: 'witness-disagrees',
      hash: 'main-97',
      witnesses: [
        { witness: 'a:1', verdict: 'agrees' },
        { witness: 'b:1', verdict: 'witness-disagrees', detail: 'holds fork-97' },
      ],
    });
  });

  it('a witness that does not answer, or whose chain is shorter, holds the run too (warned)', async () => {
    expect(await checkWith([agreeing('a:1'), unreachable('b:1')]).check.distrust()).toBe(
      'witness-unreachable',
    );
    const shorter = checkWith([behind('b:1')]);
    expect(await shorter.check.distrust()).toBe('witness-behind');
    expect(shorter.logs.records).toEqual([expect.objectContaining({ level: 40, reason: 'witness-behind' })]);
  });

  it('reports the worst reason: a disagreement before an outage before a lag', async () => {
    const all = [behind('a:1'), unreachable('b:1'), onAFork('c:1')];
    expect(await checkWith(all).check.distrust()).toBe('witness-disagrees');
    expect(await checkWith(all.slice(0, 2)).check.distrust()).toBe('witness-unreachable');
  });

  it('says so once when the witnesses agree again', async () => {
    let forked = true;
    const flipping = witness('a:1', (height) => (forked ? `fork-${height}` : `main-${height}`));
    const { check, logs } = checkWith([flipping]);
    expect(await check.distrust()).toBe('witness-disagrees');
    forked = false;
    expect(await check.distrust()).toBeNull();
    expect(await check.distrust()).toBeNull();
    expect(logs.records.map((record) => record['level'])).toEqual([50, 30]);
  });

  it('a chain too short to compare is not held (nothing on it is deep enough to decide)', async () => {
    const lone = onAFork('a:1');
    expect(await checkWith([lone], { count: 3 }).check.distrust()).toBeNull();
    expect(lone.asked).toEqual([]);
  });

  it("a failed call to the pool's own daemon fails the check (as it fails the run)", async () => {
    const logs = captureLogs('info');
    const check = new WitnessChainCheck(
      { confirmDepth: 10 },
      {
        daemon: {
          getBlockCount: async () => {
            throw new RpcError('RPC_UNREACHABLE', 'connect ECONNREFUSED');
          },
          getBlockHash: async () => 'x',
        },
        witnesses: [agreeing('a:1')],
        logger: logs.logger,
      },
    );
    await expect(check.distrust()).rejects.toMatchObject({ code: 'RPC_UNREACHABLE' });
  });
});

describe('WitnessChainCheck.close', () => {
  it("closes the witnesses' kept-alive connections at once, not after their idle timeout", async () => {
    const open = new Set<Socket>();
    const hash = 'ab'.repeat(32);
    // A witness holding the pool daemon's block (on_getblockhash), kept alive between calls.
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const { id } = JSON.parse(body) as { id: unknown };
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ jsonrpc: '2.0', id, result: hash }));
      });
    });
    server.on('connection', (socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const chain = new DaemonClient({ host: '127.0.0.1', port, timeoutMs: 2_000, retries: 0 });
      const check = new WitnessChainCheck(
        { confirmDepth: 10 },
        {
          daemon: { getBlockCount: async () => 100, getBlockHash: async () => hash },
          witnesses: [{ name: `127.0.0.1:${port}`, chain }],
          logger: captureLogs('info').logger,
        },
      );
      expect(await check.distrust()).toBeNull();
      expect(open.size).toBe(1);
      check.close();
      // The client's own idle close comes after 2 s; a stop must not leave it to that.
      await until(() => (open.size === 0 ? true : undefined), 1_000, 'the witness connection to close', 20);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
