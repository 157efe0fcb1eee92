import { type Block, parseBlock } from '../../fuego/block.js';
import { auxHeaderHash, blockId, checkMergeMiningTag, parentHashingBlob } from '../../fuego/block-hash.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import { type Transaction, transactionHash } from '../../fuego/transaction.js';
import { findMergeMiningTag, parseTxExtra, type TxExtraField } from '../../fuego/tx-extra.js';
import type { CliCommand, CliIo } from '../command.js';
import { UsageError, writeLine } from '../command.js';

const USAGE = 'fuego-pool block inspect HEX';

/**
 * `fuego-pool block inspect HEX`: decodes a block blob (a template or a submitted block) and prints its
 * fields, block id and PoW input as JSON. A malformed blob throws its CodecError (the router prints it
 * and exits 1).
 */
export const blockInspectCommand: CliCommand = {
  path: ['block', 'inspect'],
  usage: USAGE,
  summary: 'decode a block blob (hex) and print its fields, block id and PoW input as JSON',
  async run(args: string[], io: CliIo): Promise<number> {
    if (args.length !== 1 || args[0] === undefined) throw new UsageError('expected exactly one HEX argument');
    const block = parseBlock(hexToBytes(args[0].trim()));
    writeLine(io.stdout, JSON.stringify(describeBlock(block), null, 2));
    return 0;
  },
};

/** The JSON view of a block; 64-bit values are numbers when exact, decimal strings otherwise. */
export function describeBlock(block: Block): Record<string, unknown> {
  const base = block.baseTransaction.inputs[0];
  const view: Record<string, unknown> = {
    majorVersion: block.majorVersion,
    minorVersion: block.minorVersion,
    prevId: bytesToHex(block.prevId),
    timestamp: u64(block.timestamp),
    nonce: block.nonce,
    height: base?.kind === 'base' ? base.blockIndex : null,
    blockId: bytesToHex(blockId(block)),
    minerTxHash: bytesToHex(transactionHash(block.baseTransaction)),
    txHashes: block.transactionHashes.map(bytesToHex),
    minerTx: describeTransaction(block.baseTransaction),
  };
  const parent = block.parentBlock;
  if (parent !== undefined) {
    const tag = findMergeMiningTag(parent.baseTransaction.extra);
    view['hashingBlob'] = bytesToHex(parentHashingBlob(block));
    view['parentMajorVersion'] = parent.majorVersion;
    view['parentMinorVersion'] = parent.minorVersion;
    view['parentPrevId'] = bytesToHex(parent.prevId);
    view['parentTransactionCount'] = parent.transactionCount;
    view['mergeMiningTag'] =
      tag === undefined ? null : { depth: u64(tag.depth), root: bytesToHex(tag.merkleRoot) };
    view['auxHeaderHash'] = bytesToHex(auxHeaderHash(block));
    view['mergeMiningTagValid'] = checkMergeMiningTag(block);
  } else {
    view['hashingBlob'] = bytesToHex(parentHashingBlob(block));
  }
  return view;
}

function describeTransaction(tx: Transaction): Record<string, unknown> {
  return {
    version: tx.version,
    unlockTime: u64(tx.unlockTime),
    outputs: tx.outputs.map((output) =>
      output.kind === 'key'
        ? { amount: u64(output.amount), key: bytesToHex(output.key) }
        : {
            amount: u64(output.amount),
            keys: output.keys.map(bytesToHex),
            requiredSignatureCount: output.requiredSignatureCount,
            term: output.term,
          },
    ),
    reward: u64(tx.outputs.reduce((sum, output) => sum + output.amount, 0n)),
    extra: bytesToHex(tx.extra),
    extraFields: describeExtra(tx.extra),
  };
}

function describeExtra(extra: Uint8Array): unknown {
  let fields: TxExtraField[];
  try {
    fields = parseTxExtra(extra);
  } catch {
    return null; // the block is still valid for the daemon; only the extra view is unavailable
  }
  return fields.map((field) => {
    switch (field.kind) {
      case 'padding':
        return { kind: field.kind, zeroCount: field.zeroCount };
      case 'publicKey':
        return { kind: field.kind, publicKey: bytesToHex(field.publicKey) };
      case 'nonce':
        return { kind: field.kind, nonce: bytesToHex(field.nonce) };
      case 'mergeMiningTag':
        return { kind: field.kind, depth: u64(field.depth), root: bytesToHex(field.merkleRoot) };
      case 'message':
        return { kind: field.kind, data: bytesToHex(field.data) };
      case 'ttl':
        return { kind: field.kind, ttl: u64(field.ttl) };
      default:
        return { kind: field.kind, tag: field.tag };
    }
  });
}

function u64(value: bigint): number | string {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
}
