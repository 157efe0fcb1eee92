import { type Block, parseBlockWithLayout, serializeBlock } from '../../fuego/block.js';
import { auxHeaderHash } from '../../fuego/block-hash.js';
import { bytesToHex } from '../../fuego/hex.js';
import type { Transaction } from '../../fuego/transaction.js';
import { encodeMergeMiningTag } from '../../fuego/tx-extra.js';
import { type AddressKeysHex, deriveOutputKey } from './output-keys.js';
import { decomposeAmount } from './reward-schedule.js';

export const TEMPLATE_MAJOR_VERSION = 9;
const ZERO_HASH = new Uint8Array(32);

export interface TemplateInput {
  readonly height: number;
  readonly prevId: Uint8Array;
  /** Unix seconds; must be ≥ 2^28 so its varint is 5 bytes like the real chain's. */
  readonly timestamp: bigint;
  /** Base reward plus the fees of `transactionHashes`. */
  readonly rewardAtomic: bigint;
  readonly transactionHashes: readonly Uint8Array[];
  readonly address: AddressKeysHex;
  readonly txPublicKey: Uint8Array;
  /** 0..255 bytes reserved for the pool's extra nonce. */
  readonly reserveSize: number;
  /** The coinbase unlocks at height + this (the chain's coinbase maturity). */
  readonly coinbaseMaturityBlocks: number;
}

export interface BuiltTemplate {
  readonly block: Block;
  readonly blob: Uint8Array;
  /** One byte past the start of the reserved area, reproducing the daemon's off-by-one. */
  readonly reservedOffset: number;
  readonly outputKeys: readonly { readonly keyHex: string; readonly amount: bigint }[];
}

/**
 * The parent-block coinbase the daemon writes into every v9 template: version 0, unlock 0, no inputs,
 * no outputs, extra = merge-mining tag of depth 0 with an all-zero root (`00 00 00 00 23 03 21 00 <32 zero>`).
 */
export function templateParentCoinbase(): Transaction {
  return {
    version: 0,
    unlockTime: 0n,
    inputs: [],
    outputs: [],
    extra: encodeMergeMiningTag(0, ZERO_HASH),
    signatures: [],
  };
}

/**
 * Builds a v9 block template in the real daemon's layout (fuego-format.md §2.4):
 * header 09 00 prevId; parent major 0 / minor 0 / timestamp / zero prevId / nonce 0 / count 1 /
 * parent coinbase above; block coinbase version 1, unlock height + maturity (60 on Fuego), one base input, key outputs
 * to `address` summing to the reward (decimal digit decomposition), extra = 01 <tx key> 02 R <R zeros>.
 */
export function buildTemplate(input: TemplateInput): BuiltTemplate {
  const amounts = decomposeAmount(input.rewardAtomic);
  const outputKeys = amounts.map((amount, index) => ({
    keyHex: bytesToHex(deriveOutputKey(input.txPublicKey, index, input.address)),
    amount,
  }));
  const extra = new Uint8Array(1 + 32 + 2 + input.reserveSize);
  extra[0] = 0x01;
  extra.set(input.txPublicKey, 1);
  extra[33] = 0x02;
  extra[34] = input.reserveSize;
  const coinbase: Transaction = {
    version: 1,
    unlockTime: BigInt(input.height + input.coinbaseMaturityBlocks),
    inputs: [{ kind: 'base', blockIndex: input.height }],
    outputs: amounts.map((amount, index) => ({
      kind: 'key',
      amount,
      key: Uint8Array.from(Buffer.from(outputKeys[index]!.keyHex, 'hex')),
    })),
    extra,
    signatures: [],
  };
  const block: Block = {
    majorVersion: TEMPLATE_MAJOR_VERSION,
    minorVersion: 0,
    timestamp: input.timestamp,
    prevId: input.prevId,
    nonce: 0,
    parentBlock: {
      majorVersion: 0,
      minorVersion: 0,
      prevId: ZERO_HASH,
      transactionCount: 1,
      baseTransactionBranch: [],
      baseTransaction: templateParentCoinbase(),
      blockchainBranch: [],
    },
    baseTransaction: coinbase,
    transactionHashes: input.transactionHashes,
  };
  const blob = serializeBlock(block);
  // The coinbase ends with its extra (a coinbase has no signatures), so the extra starts at
  // coinbaseEnd − extra.length; its nonce data starts 35 bytes in (01 + key 32 + 02 + length byte).
  const { layout } = parseBlockWithLayout(blob);
  const extraStart = layout.coinbaseEnd - extra.length;
  return { block, blob, reservedOffset: extraStart + 35 + 1, outputKeys };
}

/**
 * A template's block as the devnet's own miner submits it: the parent coinbase's merge-mining tag
 * filled as fuegod's built-in miner does (depth 0, root = the block's aux header hash), the nonce
 * left as it is (the devnet checks no PoW on the blocks it mines).
 */
export function withMergeMiningTag(block: Block): Block {
  const parent = block.parentBlock!;
  return {
    ...block,
    parentBlock: {
      ...parent,
      baseTransaction: { ...parent.baseTransaction, extra: encodeMergeMiningTag(0, auxHeaderHash(block)) },
    },
  };
}
