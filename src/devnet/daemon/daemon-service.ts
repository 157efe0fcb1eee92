import { AddressError, type DecodedAddress, decodeAddress } from '../../fuego/address.js';
import { CodecError } from '../../fuego/errors.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import type { ChainBlock, ChainState } from '../chain/chain-state.js';
import type { ChainTransaction } from '../chain/chain-transaction.js';
import type { ExtensionEndpoints } from '../extensions/extension-endpoints.js';
import { parseJsonOrUndefined } from '../http/canonical-json.js';
import type { HttpOutcome, HttpRequestView } from '../http/rpc-http-server.js';
import {
  DaemonErrorCode,
  DaemonParams,
  DaemonRpcError,
  daemonJsonReply,
  daemonNotFound,
  handleDaemonJsonRpc,
  type JsonRpcMethodHandler,
  toUint,
} from './daemon-json-rpc.js';
import { DaemonPeers } from './daemon-peers.js';
import { transactionJson } from './transaction-json.js';

export const DAEMON_VERSION = '1.9.3';
const MAX_RESERVE_SIZE = 255;
const HASH_PATTERN = /^[0-9a-fA-F]{64}$/;

export interface DaemonServiceOptions {
  readonly chain: ChainState;
  /** Served only when present: the fee pool, alias and HEAT endpoints absent from real 1.9.3. */
  readonly extensions: ExtensionEndpoints | undefined;
  /** The operator fee address `/feeaddress` and `getinfo` report ('' = unset). */
  readonly feeAddress: string;
}

/**
 * The simulated fuegod's request handling (no sockets: `handle` maps one HTTP request to one reply,
 * so it can be tested by injection). Paths and method names, envelopes, error codes and messages follow
 * the captured 1.9.3 daemon (test/fixtures/fuegod-rpc).
 */
export class DaemonService {
  readonly #chain: ChainState;
  readonly #extensions: ExtensionEndpoints | undefined;
  readonly #feeAddress: string;
  readonly #methods: ReadonlyMap<string, JsonRpcMethodHandler>;
  /** While true the core is "initializing": getinfo says BUSY, everything else refuses. */
  busy = false;
  /** Fault: this many more valid blocks are refused (see refuseValidBlocks). */
  #validBlocksToRefuse = 0;
  /** Fault: this many more valid blocks are added but answered -7 (see refuseButAccept). */
  #acceptedBlocksToDeny = 0;
  /** Peer connections and the chain known from peers, as getinfo reports them (none by default). */
  readonly peers = new DaemonPeers();

  /** The extension endpoints, when served (control API registers aliases through them). */
  get extensions(): ExtensionEndpoints | undefined {
    return this.#extensions;
  }

  constructor(options: DaemonServiceOptions) {
    this.#chain = options.chain;
    this.#extensions = options.extensions;
    this.#feeAddress = options.feeAddress;
    this.#methods = new Map<string, JsonRpcMethodHandler>([
      ['getblockcount', (p) => this.#getBlockCount(p)],
      ['on_getblockhash', (p) => this.#getBlockHash(p)],
      ['getblocktemplate', (p) => this.#getBlockTemplate(p)],
      ['submitblock', (p) => this.#submitBlock(p)],
      ['getlastblockheader', (p) => this.#getLastBlockHeader(p)],
      ['getblockheaderbyhash', (p) => this.#getBlockHeaderByHash(p)],
      ['getblockheaderbyheight', (p) => this.#getBlockHeaderByHeight(p)],
      ['f_on_transactions_pool_json', (p) => this.#poolJson(p)],
      ['getcurrencyid', (p) => this.#currencyId(p)],
      ['getaltblockslist', (p) => this.#altBlocks(p)],
      ['f_blocks_list_json', (p) => this.#blocksListJson(p)],
      ['f_block_json', (p) => this.#blockJson(p)],
      ['f_transaction_json', (p) => this.#transactionJson(p)],
    ]);
  }

  /**
   * Fault: the next `count` blocks that would be accepted (on the tip or as alternative blocks) are
   * refused with `-7 Block not accepted` and not added, as a fuegod whose cn/upx2 disagrees with the
   * pool's refuses good blocks (shared/spec/fuego-daemon-behaviour.md). Invalid blocks are refused
   * as always and do not count. 0 ends the fault.
   */
  refuseValidBlocks(count: number): void {
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError('count must be a whole number >= 0');
    this.#validBlocksToRefuse = count;
  }

  /**
   * Fault: the next `count` blocks that go onto the main chain are added but answered with
   * `-7 Block not accepted`, as a real fuegod answers a block it already has (a duplicate submit
   * from a second stratum node, a resubmit): the pool hears "refused" for a block that is on the
   * chain. Invalid blocks and blocks kept as alternative ones are answered -7 as always and do
   * not count. 0 ends the fault.
   */
  refuseButAccept(count: number): void {
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError('count must be a whole number >= 0');
    this.#acceptedBlocksToDeny = count;
  }

  handle(request: HttpRequestView): HttpOutcome {
    switch (request.path) {
      case '/json_rpc':
        return handleDaemonJsonRpc(request.body, (method) => {
          const handler = this.#methods.get(method);
          if (!handler) return undefined;
          return (params) => {
            if (this.busy) throw new DaemonRpcError(DaemonErrorCode.CORE_BUSY, 'Core is busy');
            return handler(params);
          };
        });
      case '/getinfo':
        return daemonJsonReply(this.#info());
      default:
        break;
    }
    if (this.busy) return this.#busyReply(request.path);
    switch (request.path) {
      case '/getheight':
        return daemonJsonReply({ height: this.#chain.height, status: 'OK' });
      case '/getpeers':
        return daemonJsonReply({ peers: [], status: 'OK' });
      case '/feeaddress':
        return daemonJsonReply({ fee_address: this.#feeAddress, status: 'OK' });
      case '/gettransactions':
        return this.#getTransactions(request.body);
      case '/sendrawtransaction':
        return this.#sendRawTransaction(request.body);
      case '/start_mining':
        return this.#startMining(request.body);
      case '/stop_mining':
        return daemonJsonReply({ status: 'OK' });
      default:
        return this.#extensions?.handle(request, this.#chain.height) ?? daemonNotFound();
    }
  }

  #busyReply(path: string): HttpOutcome {
    // Known direct paths refuse while the core initializes: RpcServer::processRequest's 500 + text.
    const known = ['/getheight', '/getpeers', '/feeaddress', '/gettransactions', '/sendrawtransaction'];
    if (!known.includes(path)) return daemonNotFound();
    return { kind: 'reply', status: 500, body: 'Core is busy', headers: [] };
  }

  #info(): Record<string, unknown> {
    const chain = this.#chain;
    const tip = chain.tip;
    const depositsTotal = chain
      .mainChain()
      .reduce((sum, block) => sum + block.transactions.reduce((s, tx) => s + tx.depositsAtomic, 0n), 0n);
    return {
      alt_blocks_count: chain.alternativeBlocks().length,
      block_major_version: tip.block.majorVersion,
      block_minor_version: tip.block.minorVersion,
      difficulty: chain.difficulty,
      fee_address: this.#feeAddress,
      full_deposit_amount: depositsTotal,
      grey_peerlist_size: 0,
      height: chain.height,
      ...this.peers.infoFields(chain.height),
      last_block_difficulty: tip.difficulty,
      last_block_reward: tip.rewardAtomic,
      last_block_timestamp: tip.block.timestamp,
      status: this.busy ? 'BUSY' : 'OK',
      top_block_hash: tip.id,
      tx_count: chain.confirmedTransactionCount(),
      tx_pool_size: chain.mempool().length,
      version: DAEMON_VERSION,
      white_peerlist_size: 0,
    };
  }

  // ---- JSON-RPC methods ----------------------------------------------------------------------

  #getBlockCount(params: unknown): unknown {
    DaemonParams.empty(params);
    return { count: this.#chain.height, status: 'OK' };
  }

  #getBlockHash(params: unknown): unknown {
    const list = DaemonParams.array(params);
    if (list.length !== 1)
      throw new DaemonRpcError(DaemonErrorCode.WRONG_PARAM, 'Wrong parameters, expected height');
    const height = toUint(list[0], 64);
    return this.#mainBlockAt(height).id;
  }

  #getBlockTemplate(params: unknown): unknown {
    const p = DaemonParams.object(params);
    const reserveSize = p.uint64('reserve_size');
    const walletAddress = p.string('wallet_address');
    if (reserveSize > BigInt(MAX_RESERVE_SIZE)) {
      throw new DaemonRpcError(DaemonErrorCode.TOO_BIG_RESERVE_SIZE, 'To big reserved size, maximum 255');
    }
    const address = parseStandardAddress(walletAddress);
    if (!address)
      throw new DaemonRpcError(DaemonErrorCode.WRONG_WALLET_ADDRESS, 'Failed to parse wallet address');
    const template = this.#chain.createTemplate(walletAddress, address, Number(reserveSize));
    return {
      blocktemplate_blob: bytesToHex(template.blob),
      difficulty: template.difficulty,
      height: template.height,
      reserved_offset: template.reservedOffset,
      status: 'OK',
    };
  }

  #submitBlock(params: unknown): unknown {
    const list = DaemonParams.array(params);
    if (list.length !== 1) throw new DaemonRpcError(DaemonErrorCode.WRONG_PARAM, 'Wrong param');
    const item = list[0];
    if (typeof item !== 'string')
      throw new DaemonRpcError(DaemonErrorCode.INTERNAL_JSON_ERROR, 'JsonValue type is not STRING');
    let blob: Uint8Array;
    try {
      blob = hexToBytes(item);
    } catch (error) {
      if (error instanceof CodecError)
        throw new DaemonRpcError(DaemonErrorCode.WRONG_BLOCKBLOB, 'Wrong block blob');
      throw error;
    }
    if (this.#validBlocksToRefuse > 0 && this.#chain.checkBlock(blob)) {
      this.#validBlocksToRefuse--;
      throw new DaemonRpcError(DaemonErrorCode.BLOCK_NOT_ACCEPTED, 'Block not accepted');
    }
    // Like on_submitblock, OK only when the block went onto the main chain: a block kept as an
    // alternative one is answered -7 like an invalid one.
    const result = this.#chain.submitBlock(blob);
    if (!result.accepted || result.placement === 'alternative')
      throw new DaemonRpcError(DaemonErrorCode.BLOCK_NOT_ACCEPTED, 'Block not accepted');
    if (this.#acceptedBlocksToDeny > 0) {
      this.#acceptedBlocksToDeny--;
      throw new DaemonRpcError(DaemonErrorCode.BLOCK_NOT_ACCEPTED, 'Block not accepted');
    }
    return { status: 'OK' };
  }

  #getLastBlockHeader(params: unknown): unknown {
    DaemonParams.empty(params);
    return { block_header: this.#header(this.#chain.tip), status: 'OK' };
  }

  #getBlockHeaderByHash(params: unknown): unknown {
    const hash = DaemonParams.object(params).string('hash');
    const block = this.#blockByHash(hash);
    return { block_header: this.#header(block), status: 'OK' };
  }

  #getBlockHeaderByHeight(params: unknown): unknown {
    const height = DaemonParams.object(params).uint64('height');
    return { block_header: this.#header(this.#mainBlockAt(height)), status: 'OK' };
  }

  #poolJson(params: unknown): unknown {
    DaemonParams.empty(params);
    return { status: 'OK', transactions: this.#chain.mempool().map((tx) => shortTransaction(tx)) };
  }

  #currencyId(params: unknown): unknown {
    DaemonParams.empty(params);
    return { currency_id_blob: bytesToHex(this.#chain.genesisId) };
  }

  #altBlocks(params: unknown): unknown {
    DaemonParams.empty(params);
    return { alt_blocks: this.#chain.alternativeBlocks().map((block) => this.#header(block)), status: 'OK' };
  }

  #blocksListJson(params: unknown): unknown {
    const height = DaemonParams.object(params).uint64('height');
    if (height >= BigInt(this.#chain.height)) {
      throw new DaemonRpcError(
        DaemonErrorCode.TOO_BIG_HEIGHT,
        `To big height: ${height}, current blockchain height = ${this.#chain.height}`,
      );
    }
    const blocks = [];
    for (let h = Number(height); h >= 0 && blocks.length < 30; h--) {
      const block = this.#chain.blockAt(h)!;
      blocks.push({
        cumul_size: block.blob.length,
        difficulty: block.difficulty,
        hash: block.id,
        height: block.height,
        timestamp: block.block.timestamp,
        tx_count: block.transactions.length + 1,
      });
    }
    return { blocks, status: 'OK' };
  }

  #blockJson(params: unknown): unknown {
    const hash = DaemonParams.object(params).string('hash');
    const block = this.#blockByHash(hash);
    const header = this.#header(block);
    const coinbaseSize = block.blob.length - block.transactions.length * 32;
    return {
      block: {
        ...header,
        alreadyGeneratedCoins: block.alreadyGeneratedAtomic.toString(),
        alreadyGeneratedTransactions: block.height + 1 + this.#chain.confirmedTransactionCount(),
        baseReward: block.baseRewardAtomic,
        blockSize: block.blob.length + block.transactions.reduce((s, tx) => s + tx.bytes.length, 0),
        effectiveSizeMedian: 0,
        penalty: 0,
        sizeMedian: 0,
        totalFeeAmount: block.feesAtomic,
        transactions: [
          { amount_out: block.rewardAtomic, fee: 0, hash: block.coinbaseHash, size: coinbaseSize },
          ...block.transactions.map((tx) => shortTransaction(tx)),
        ],
        transactionsCumulativeSize: block.transactions.reduce((s, tx) => s + tx.bytes.length, coinbaseSize),
      },
      status: 'OK',
    };
  }

  #transactionJson(params: unknown): unknown {
    const hash = DaemonParams.object(params).string('hash');
    const found = HASH_PATTERN.test(hash) ? this.#chain.findTransaction(hash) : undefined;
    // Like the real daemon, only confirmed transactions are found here (mempool ones are not).
    if (!found?.block) {
      throw new DaemonRpcError(DaemonErrorCode.WRONG_PARAM, `transaction wasn't found. Hash = ${hash}.`);
    }
    const block = found.block;
    return {
      block: {
        cumul_size: block.blob.length,
        difficulty: block.difficulty,
        hash: block.id,
        height: block.height,
        timestamp: block.block.timestamp,
        tx_count: block.transactions.length + 1,
      },
      status: 'OK',
      ...transactionJson(found.tx),
    };
  }

  // ---- direct paths --------------------------------------------------------------------------

  #getTransactions(body: string): HttpOutcome {
    const parsed = parseJsonOrUndefined(body);
    const hashes = (parsed?.value as { txs_hashes?: unknown } | null | undefined)?.txs_hashes;
    if (!Array.isArray(hashes) || hashes.some((h) => typeof h !== 'string'))
      return daemonJsonReply({ status: 'Failed' });
    const found: string[] = [];
    const missed: string[] = [];
    for (const hash of hashes as string[]) {
      const tx = HASH_PATTERN.test(hash) ? this.#chain.findTransaction(hash) : undefined;
      if (tx) found.push(bytesToHex(tx.tx.bytes));
      else missed.push(hash);
    }
    return daemonJsonReply({ missed_tx: missed, status: 'OK', txs_as_hex: found });
  }

  #sendRawTransaction(body: string): HttpOutcome {
    const parsed = parseJsonOrUndefined(body);
    const hex = (parsed?.value as { tx_as_hex?: unknown } | null | undefined)?.tx_as_hex;
    if (typeof hex !== 'string') return daemonJsonReply({ status: 'Failed' });
    let bytes: Uint8Array;
    try {
      bytes = hexToBytes(hex);
    } catch {
      return daemonJsonReply({ status: 'Failed' });
    }
    const result = this.#chain.addTransaction(bytes);
    return daemonJsonReply({ status: result.ok ? 'OK' : 'Failed' });
  }

  #startMining(body: string): HttpOutcome {
    const parsed = parseJsonOrUndefined(body);
    const address = (parsed?.value as { miner_address?: unknown } | null | undefined)?.miner_address;
    if (typeof address !== 'string' || !parseStandardAddress(address)) {
      return daemonJsonReply({ status: 'Failed, wrong address' });
    }
    return daemonJsonReply({ status: 'OK' });
  }

  // ---- helpers -------------------------------------------------------------------------------

  #mainBlockAt(height: bigint): ChainBlock {
    const count = this.#chain.height;
    if (height >= BigInt(count)) {
      throw new DaemonRpcError(
        DaemonErrorCode.TOO_BIG_HEIGHT,
        `To big height: ${height}, current blockchain height = ${count}`,
      );
    }
    return this.#chain.blockAt(Number(height))!;
  }

  #blockByHash(hash: string): ChainBlock {
    if (!HASH_PATTERN.test(hash)) {
      throw new DaemonRpcError(
        DaemonErrorCode.WRONG_PARAM,
        `Failed to parse hex representation of block hash. Hex = ${hash}.`,
      );
    }
    const block = this.#chain.blockById(hash);
    if (!block) {
      throw new DaemonRpcError(
        DaemonErrorCode.INTERNAL_ERROR,
        `Internal error: can't get block by hash. Hash = ${hash}.`,
      );
    }
    return block;
  }

  #header(block: ChainBlock): Record<string, unknown> {
    const topHeight = this.#chain.height - 1;
    return {
      deposits: block.transactions.reduce((sum, tx) => sum + tx.depositsAtomic, 0n),
      depth: Math.max(0, topHeight - block.height),
      difficulty: block.difficulty,
      hash: block.id,
      height: block.height,
      major_version: block.block.majorVersion,
      minor_version: block.block.minorVersion,
      nonce: block.block.nonce,
      orphan_status: block.orphaned,
      prev_hash: bytesToHex(block.block.prevId),
      reward: block.rewardAtomic,
      timestamp: block.block.timestamp,
    };
  }
}

function shortTransaction(tx: ChainTransaction): Record<string, unknown> {
  return { amount_out: tx.amountOutAtomic, fee: tx.feeAtomic, hash: tx.hash, size: tx.bytes.length };
}

/** A standard (98-character) Fuego address with valid keys, or undefined; integrated ones are refused like the daemon does. */
export function parseStandardAddress(text: string): DecodedAddress | undefined {
  try {
    const decoded = decodeAddress(text);
    return decoded.type === 'standard' ? decoded : undefined;
  } catch (error) {
    if (error instanceof AddressError) return undefined;
    throw error;
  }
}
