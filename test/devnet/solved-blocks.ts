import type { ChainBlock } from '../../src/devnet/chain/chain-state.js';
import type { ChainTransaction } from '../../src/devnet/chain/chain-transaction.js';
import { deriveTxPublicKey } from '../../src/devnet/chain/output-keys.js';
import { baseRewardAtomic } from '../../src/devnet/chain/reward-schedule.js';
import { buildTemplate } from '../../src/devnet/chain/template-builder.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import { decodeAddress } from '../../src/fuego/address.js';
import { type Block, parseBlock, serializeBlock } from '../../src/fuego/block.js';
import { auxHeaderHash, blockId, parentHashingBlob } from '../../src/fuego/block-hash.js';
import { checkHash } from '../../src/fuego/difficulty.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { encodeMergeMiningTag } from '../../src/fuego/tx-extra.js';
import { jsonRpc, send, testHasher } from './devnet-test-helpers.js';

/** The fields of a getblocktemplate result a block is built from. */
export interface Template {
  blocktemplate_blob: string;
  reserved_offset: number;
  height: number;
  difficulty: number;
}

/** The devnet daemon's getblocktemplate for its wallet's address, reserve size 8 (the pool's). */
export async function getTemplate(devnet: Devnet): Promise<Template> {
  const reply = await jsonRpc(devnet.daemonUrl, 'getblocktemplate', {
    wallet_address: devnet.walletAddress,
    reserve_size: 8,
  });
  return reply['result'] as Template;
}

/** submitblock's reply to `blob` as the bytes on the wire (to compare with a captured reply). */
export async function submitBlockRaw(devnet: Devnet, blob: Uint8Array): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: '1', method: 'submitblock', params: [bytesToHex(blob)] });
  return (await send(`${devnet.daemonUrl}/json_rpc`, 'POST', body)).text;
}

/**
 * The pool procedure of fuego-format.md §5.6: extra nonce, parent major 1 + prev id, mm tag = aux.
 * `prevId` builds on another block than the template's (the tag follows it).
 */
export function blockFromTemplate(
  template: Template,
  extraNonce: number,
  prevId?: Uint8Array,
): { blob: Uint8Array; block: Block } {
  const blob = hexToBytes(template.blocktemplate_blob);
  blob[template.reserved_offset] = extraNonce;
  const parsed = { ...parseBlock(blob), ...(prevId === undefined ? {} : { prevId }) };
  const block: Block = {
    ...parsed,
    parentBlock: {
      ...parsed.parentBlock!,
      majorVersion: 1,
      prevId: parsed.prevId,
      baseTransaction: {
        ...parsed.parentBlock!.baseTransaction,
        version: 1,
        extra: encodeMergeMiningTag(0, auxHeaderHash(parsed)),
      },
    },
  };
  return { blob: serializeBlock(block), block };
}

/** The first nonce from the block's own whose hash meets `difficulty` (or, wantPass false, misses it). */
export function solve(block: Block, difficulty: number, wantPass = true): Block {
  const hasher = testHasher();
  for (let nonce = 0; ; nonce++) {
    const candidate = { ...block, nonce };
    if (checkHash(hasher.hash(parentHashingBlob(candidate)), difficulty) === wantPass) return candidate;
  }
}

/** A solved block: its blob and id. */
export interface SolvedBlock {
  readonly blob: Uint8Array;
  readonly id: string;
  readonly block: Block;
}

export function solvedBlock(block: Block, difficulty: number, wantPass = true): SolvedBlock {
  const solved = solve(block, difficulty, wantPass);
  return { blob: serializeBlock(solved), id: bytesToHex(blockId(solved)), block: solved };
}

/**
 * A block a peer could have mined on `parent` (any block, on the main chain or not), paying
 * `address`, carrying exactly `transactions` (the coinbase pays the base reward plus their fees),
 * solved at `difficulty`. `premineAtomic` is the devnet's (it decides block 1's reward only).
 */
export function peerBlockOn(
  parent: ChainBlock,
  options: {
    readonly address: string;
    readonly transactions: readonly ChainTransaction[];
    readonly difficulty: number;
    readonly coinbaseMaturityBlocks: number;
    readonly premineAtomic?: bigint;
  },
): SolvedBlock {
  const keys = decodeAddress(options.address);
  const height = parent.height + 1;
  const fees = options.transactions.reduce((sum, tx) => sum + tx.feeAtomic, 0n);
  const built = buildTemplate({
    height,
    prevId: hexToBytes(parent.id),
    timestamp: parent.block.timestamp + 1n,
    rewardAtomic: baseRewardAtomic(parent.alreadyGeneratedAtomic, height, options.premineAtomic) + fees,
    transactionHashes: options.transactions.map((tx) => hexToBytes(tx.hash)),
    address: keys,
    txPublicKey: deriveTxPublicKey(BigInt(height) + 1_000_000n, hexToBytes(parent.id)),
    reserveSize: 8,
    coinbaseMaturityBlocks: options.coinbaseMaturityBlocks,
  });
  const template: Template = {
    blocktemplate_blob: bytesToHex(built.blob),
    reserved_offset: built.reservedOffset,
    height,
    difficulty: options.difficulty,
  };
  return solvedBlock(blockFromTemplate(template, 0x77).block, options.difficulty);
}
