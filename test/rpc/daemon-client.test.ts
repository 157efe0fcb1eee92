import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonClient } from '../../src/rpc/daemon-client.js';
import type { RpcCall, RpcCallObserver } from '../../src/rpc/rpc-call-observer.js';
import { type CannedReply, capturedReply, startReplayServer } from '../helpers/fixture-http-server.js';
import { freePort } from '../helpers/redis-server.js';
import { rpcErrorOf } from '../helpers/rpc-error-of.js';

/** Which captured real-daemon reply answers which request. */
function routeToCaptures(path: string, json: unknown): CannedReply {
  const method = (json as { method?: string } | undefined)?.method;
  const params = (json as { params?: unknown } | undefined)?.params;
  if (path === '/getinfo') return capturedReply('fuegod-rpc/66-getinfo-v9');
  if (path === '/getheight') return capturedReply('fuegod-rpc/02-getheight-h1');
  if (path === '/feeaddress') return capturedReply('fuegod-rpc/19-feeaddress-unset');
  if (path === '/get_alias') return capturedReply('fuegod-rpc/21-get_alias');
  if (path === '/get_fee_pool_info') return capturedReply('fuegod-rpc/22-get_fee_pool_info');
  if (path === '/html') return { status: 200, body: '<html>502 Bad Gateway</html>' };
  if (path !== '/json_rpc') return capturedReply('fuegod-rpc/32-unknown-url');
  switch (method) {
    case 'getlastblockheader':
      return capturedReply('fuegod-rpc/53-getlastblockheader-after-solved');
    case 'getblockheaderbyheight':
      return (params as { height: number }).height === 0
        ? capturedReply('fuegod-rpc/05-getblockheaderbyheight-0')
        : capturedReply('fuegod-rpc/06-getblockheaderbyheight-past-tip');
    case 'getblocktemplate':
      return capturedReply('fuegod-rpc/50-getblocktemplate-v9-for-solve');
    case 'submitblock':
      return capturedReply('fuegod-rpc/09-submitblock-bad-blob-validhex');
    case 'on_getblockhash':
      return capturedReply('fuegod-rpc/24-on_getblockhash-0');
    case 'getcurrencyid':
      return capturedReply('fuegod-rpc/26-getcurrencyid');
    case 'getblockcount':
      return capturedReply('fuegod-rpc/23-getblockcount');
    case 'f_blocks_list_json':
      return capturedReply('fuegod-rpc/64-f_blocks_list_json');
    case 'f_transaction_json': {
      const hash = (params as { hash: string }).hash;
      if (hash.startsWith('216277e6')) return capturedReply('fuegod-rpc/75-f_transaction_json-fee1-tx-mined');
      if (hash.startsWith('4cdbf83d')) return capturedReply('fuegod-rpc/72-f_transaction_json-pool-tx');
      return capturedReply('fuegod-rpc/65-f_transaction_json-unknown');
    }
    case 'f_on_transactions_pool_json':
      return capturedReply('fuegod-rpc/70-f_on_transactions_pool_json-with-tx');
    default:
      return capturedReply('fuegod-rpc/13-unknown-method');
  }
}

describe('DaemonClient against captured fuegod 1.9.3 replies', () => {
  let server: Awaited<ReturnType<typeof startReplayServer>>;
  let client: DaemonClient;

  beforeAll(async () => {
    server = await startReplayServer((request, json) => routeToCaptures(request.url, json));
    client = new DaemonClient({ host: '127.0.0.1', port: server.port, timeoutMs: 2_000, retries: 0 });
  });

  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('reads getinfo, height, last header, template, block hash, currency id and block count', async () => {
    const info = await client.getInfo();
    expect(info).toMatchObject({ status: 'OK', height: 16, block_major_version: 9, version: '1.9.3' });
    expect(await client.getHeight()).toBe(1);
    expect((await client.getLastBlockHeader()).height).toBe(15);
    const template = await client.getBlockTemplate({ reserveSize: 8, walletAddress: 'fire...' });
    expect(template.blocktemplate_blob.startsWith('0900')).toBe(true);
    expect(template.reserved_offset).toBeGreaterThan(0);
    expect(await client.getBlockHash(0)).toMatch(/^3c1fde6f/);
    expect(await client.getCurrencyId()).toMatch(/^[0-9a-f]{64}$/);
    expect(await client.getBlockCount()).toBe(1);
    expect(await client.getFeeAddress()).toBe('');
  });

  it("reads the main chain's blocks from a height down in one call (f_blocks_list_json)", async () => {
    const blocks = await client.getBlocksList(15);
    expect(blocks.map((b) => b.height)).toEqual(Array.from({ length: 16 }, (_, i) => 15 - i));
    expect(blocks[0]?.hash).toBe('6c553bf78ed2e4d970730db668cd109aeaeabd9a1cc1a3b53cc168051c7df182');
    const body = JSON.parse(server.requests.at(-1)!.body);
    expect(body).toMatchObject({ method: 'f_blocks_list_json', params: { height: 15 } });
  });

  it('finds the block of a mined transaction; one only in the pool or unknown is in no block', async () => {
    expect(
      await client.findTransactionBlock('216277e6bad8997bf5aee9febe781c23049aee26f037a06782ce9134bf33d48e'),
    ).toEqual({
      height: 64,
      hash: 'da7e4e7f80a6368fb66f95425269be2c020aa6304f4879626098f86311779d6d',
      feeAtomic: 1n,
    });
    const pooled = '4cdbf83d755dccc43a67fa116757d0e712cab6fc0042b571c57ad955045689df';
    expect(await client.findTransactionBlock(pooled)).toBeNull();
    expect(await client.findTransactionBlock(`${'00'.repeat(31)}01`)).toBeNull();
    expect(await client.getPoolTransactionHashes()).toEqual([pooled]);
  });

  it("reads the fee a mined transaction paid from its inputs and outputs, not fuegod's txDetails.fee (never below the minimum fee)", async () => {
    // Capture 75: inputs 305070000, outputs 305069999 (walletd's record of it says fee 1), while
    // txDetails.fee says 80000.
    expect(
      await client.findTransactionBlock('216277e6bad8997bf5aee9febe781c23049aee26f037a06782ce9134bf33d48e'),
    ).toMatchObject({ height: 64, feeAtomic: 1n });
  });

  it('always sends params, even for methods without any (the daemon answers -32603 otherwise)', async () => {
    await client.getLastBlockHeader();
    await client.getCurrencyId();
    const rpcBodies = server.requests.filter((r) => r.url === '/json_rpc').map((r) => JSON.parse(r.body));
    expect(rpcBodies.length).toBeGreaterThan(0);
    for (const body of rpcBodies) expect(body).toHaveProperty('params');
  });

  it('turns a JSON-RPC error into RPC_ERROR carrying the daemon code', async () => {
    const pastTip = await rpcErrorOf(client.getBlockHeaderByHeight(100));
    expect(pastTip.code).toBe('RPC_ERROR');
    expect(pastTip.rpcCode).toBe(-2);
    const rejected = await rpcErrorOf(client.submitBlock('00'));
    expect(rejected.rpcCode).toBe(-7);
    expect(rejected.isTransient).toBe(false);
  });

  it('treats a 404 on the optional alias and fee-pool endpoints as "not supported"', async () => {
    expect((await rpcErrorOf(client.getAlias('@someone'))).code).toBe('RPC_NOT_SUPPORTED');
    expect((await rpcErrorOf(client.getFeePoolInfo())).code).toBe('RPC_NOT_SUPPORTED');
  });
});

/** A client that retries a failed read twice, 5 ms apart. */
function retryingClient(port: number, observe?: RpcCallObserver): DaemonClient {
  return new DaemonClient({
    host: '127.0.0.1',
    port,
    timeoutMs: 1_000,
    retries: 2,
    retryBaseDelayMs: 5,
    ...(observe === undefined ? {} : { observe }),
  });
}

describe('DaemonClient transport failures', () => {
  it('reports a refused connection as RPC_UNREACHABLE after the configured retries', async () => {
    const port = await freePort();
    const client = new DaemonClient({
      host: '127.0.0.1',
      port,
      timeoutMs: 500,
      retries: 2,
      retryBaseDelayMs: 10,
    });
    const error = await rpcErrorOf(client.getInfo());
    expect(error.code).toBe('RPC_UNREACHABLE');
    client.close();
  });

  it('gives up after timeoutMs with RPC_TIMEOUT', async () => {
    const server = await startReplayServer(() => ({
      ...capturedReply('fuegod-rpc/02-getheight-h1'),
      delayMs: 1_000,
    }));
    const client = new DaemonClient({ host: '127.0.0.1', port: server.port, timeoutMs: 100, retries: 0 });
    expect((await rpcErrorOf(client.getHeight())).code).toBe('RPC_TIMEOUT');
    client.close();
    await server.close();
  });

  it('retries a read that failed transiently and returns the later answer', async () => {
    let calls = 0;
    const server = await startReplayServer(() => {
      calls += 1;
      return calls === 1 ? { status: 503, body: 'busy' } : capturedReply('fuegod-rpc/02-getheight-h1');
    });
    const client = retryingClient(server.port);
    expect(await client.getHeight()).toBe(1);
    expect(calls).toBe(2);
    client.close();
    await server.close();
  });

  it('tells its observer of every attempt: the method or path, the time taken, and the error code of a failed one', async () => {
    let calls = 0;
    const server = await startReplayServer((request, json) => {
      calls += 1;
      return calls === 1 ? { status: 503, body: 'busy' } : routeToCaptures(request.url, json);
    });
    const seen: RpcCall[] = [];
    const client = retryingClient(server.port, (call) => seen.push(call));
    try {
      expect(await client.getHeight()).toBe(1);
      await client.getBlockCount();
      await expect(client.getBlockHeaderByHeight(100)).rejects.toMatchObject({ code: 'RPC_ERROR' });
      expect(seen.map(({ method, errorCode }) => ({ method, errorCode }))).toEqual([
        { method: '/getheight', errorCode: 'RPC_HTTP_STATUS' },
        { method: '/getheight', errorCode: undefined },
        { method: 'getblockcount', errorCode: undefined },
        { method: 'getblockheaderbyheight', errorCode: 'RPC_ERROR' },
      ]);
      for (const call of seen) expect(call.durationMs).toBeGreaterThanOrEqual(0);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('never retries submitblock', async () => {
    let calls = 0;
    const server = await startReplayServer(() => {
      calls += 1;
      return { status: 503, body: 'busy' };
    });
    const client = new DaemonClient({
      host: '127.0.0.1',
      port: server.port,
      timeoutMs: 1_000,
      retries: 3,
      retryBaseDelayMs: 5,
    });
    expect((await rpcErrorOf(client.submitBlock('00'))).code).toBe('RPC_HTTP_STATUS');
    expect(calls).toBe(1);
    client.close();
    await server.close();
  });

  it('rejects an HTML error page with RPC_BAD_RESPONSE instead of crashing', async () => {
    const server = await startReplayServer(() => ({ status: 200, body: '<html>502 Bad Gateway</html>' }));
    const client = new DaemonClient({ host: '127.0.0.1', port: server.port, timeoutMs: 1_000, retries: 0 });
    expect((await rpcErrorOf(client.getLastBlockHeader())).code).toBe('RPC_BAD_RESPONSE');
    expect((await rpcErrorOf(client.getInfo())).code).toBe('RPC_BAD_RESPONSE');
    client.close();
    await server.close();
  });
});

/**
 * A daemon's /getheight, /getinfo and getlastblockheader (POST /json_rpc, whatever the method
 * asked) as captured, each with its Content-Length as fuegod sends it, or chunked (as a proxy in
 * front of it might), or the first /getheight padded past 64 KiB; counts the connections made to it.
 */
async function startHeightServer(answers: 'plain' | 'chunked' | 'first-oversized'): Promise<{
  readonly port: number;
  readonly connections: () => number;
  /** The connection (1, 2, ...) each request came on, by path, in arrival order. */
  readonly connectionsOf: (path: string) => number[];
  close(): Promise<void>;
}> {
  let connections = 0;
  let heights = 0;
  const numbers = new WeakMap<object, number>();
  const requests: Array<{ path: string; connection: number }> = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', connection: numbers.get(req.socket) ?? 0 });
    const captured =
      req.url === '/getinfo'
        ? 'fuegod-rpc/66-getinfo-v9'
        : req.url === '/json_rpc'
          ? 'fuegod-rpc/04-getlastblockheader-h1'
          : 'fuegod-rpc/02-getheight-h1';
    let { body } = capturedReply(captured);
    if (req.url === '/getheight' && heights++ === 0 && answers === 'first-oversized') {
      body = `${body}${' '.repeat(70_000)}`;
    }
    res.writeHead(200, answers === 'chunked' ? {} : { 'content-length': Buffer.byteLength(body) });
    res.write(body.slice(0, 5));
    res.end(body.slice(5));
  });
  server.on('connection', (socket) => numbers.set(socket, ++connections));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    connectionsOf: (path) => requests.filter((request) => request.path === path).map((r) => r.connection),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The block the captured getlastblockheader answer names (fuegod-rpc/04-getlastblockheader-h1). */
const GENESIS_HASH = '3c1fde6ff5748526bab6b30e78b33643a238c5ff37d76d99ea6fed2173c4eba1';

/** A DaemonClient against startHeightServer(answers), both closed after `test`. */
async function withHeightServer(
  answers: Parameters<typeof startHeightServer>[0],
  test: (client: DaemonClient, server: Awaited<ReturnType<typeof startHeightServer>>) => Promise<void>,
): Promise<void> {
  const server = await startHeightServer(answers);
  const client = new DaemonClient({ host: '127.0.0.1', port: server.port, timeoutMs: 2_000, retries: 0 });
  try {
    await test(client, server);
  } finally {
    client.close();
    await server.close();
  }
}

describe('DaemonClient.getHeight and getLastBlockHeader, which the tip check and the poll ask 40 and 10 times a second', () => {
  it('go over a kept-alive connection of their own, beside the one every other call uses', async () => {
    await withHeightServer('plain', async (client, server) => {
      for (let i = 0; i < 3; i++) {
        expect(await client.getHeight()).toBe(1);
        expect((await client.getLastBlockHeader()).hash).toBe(GENESIS_HASH);
      }
      expect((await client.getInfo()).height).toBe(16);
      const [height, header] = await Promise.all([client.getHeight(), client.getLastBlockHeader()]);
      expect([height, header.height]).toEqual([1, 0]);
      expect(server.connectionsOf('/getheight')).toEqual([1, 1, 1, 1]);
      expect(server.connectionsOf('/json_rpc')).toEqual([1, 1, 1, 1]);
      expect(server.connectionsOf('/getinfo')).toEqual([2]);
    });
  });

  it('still read the tip from a server that answers chunked (a proxy): the client of every other call takes over for good', async () => {
    await withHeightServer('chunked', async (client, server) => {
      for (let i = 0; i < 3; i++) {
        expect(await client.getHeight()).toBe(1);
        expect((await client.getLastBlockHeader()).hash).toBe(GENESIS_HASH);
      }
      expect((await client.getInfo()).height).toBe(16);
      // The first connection was the tip calls' own, dropped at the chunked answer (the height is
      // asked again on the other at once); then one for all.
      expect(server.connectionsOf('/getheight')).toEqual([1, 2, 2, 2]);
      expect(server.connectionsOf('/json_rpc')).toEqual([2, 2, 2]);
      expect(server.connections()).toBe(2);
    });
  });

  it('fails a call on an answer it refuses for another reason (past 64 KiB), and keeps its own connection for the next', async () => {
    await withHeightServer('first-oversized', async (client, server) => {
      expect((await rpcErrorOf(client.getHeight())).code).toBe('RPC_BAD_RESPONSE');
      expect(await client.getHeight()).toBe(1);
      expect((await client.getInfo()).height).toBe(16);
      // Its own (dropped at the refused answer), its own again, and the one every other call uses.
      expect(server.connections()).toBe(3);
    });
  });
});
