import { loadPoolConfig } from '../../app/config-addresses.js';
import { connectRedis } from '../../app/redis-connection.js';
import { type Block, parseBlock } from '../../fuego/block.js';
import { auxHeaderHash, blockId, checkMergeMiningTag, parentHashingBlob } from '../../fuego/block-hash.js';
import { blockTargetHex, checkHash, hashDifficulty } from '../../fuego/difficulty.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import { type Transaction, transactionHash } from '../../fuego/transaction.js';
import { findMergeMiningTag, parseTxExtra, type TxExtraField } from '../../fuego/tx-extra.js';
import { createLogger } from '../../log/logger.js';
import type { StoredBlockCandidate } from '../../model/blocks/stored-block.js';
import {
  isPowImplementationChoice,
  loadHasher,
  POW_IMPLEMENTATION_CHOICES,
  type PowImplementationChoice,
} from '../../pow/load-hasher.js';
import type { PowHasher } from '../../pow/types.js';
import { RedisLedgerReader } from '../../store/shares/ledger-reader.js';
import type { CliCommand, CliIo } from '../command.js';
import { UsageError, writeLine } from '../command.js';
import { parseFlags } from '../control-args.js';

const USAGE =
  'fuego-pool block inspect (HEX [--difficulty N] | --config FILE --block HASH [--difficulty N]) ' +
  `[--impl ${POW_IMPLEMENTATION_CHOICES.join('|')}]`;

const FLAGS = {
  '--difficulty': 'value',
  '--config': 'value',
  '--block': 'value',
  '--impl': 'value',
} as const;
const BLOCK_HASH_PATTERN = /^[0-9a-f]{64}$/;

type BlockSource = { kind: 'hex'; hex: string } | { kind: 'record'; configPath: string; blockHash: string };

interface InspectArgs {
  readonly source: BlockSource;
  readonly difficulty: bigint | undefined;
  readonly implementation: PowImplementationChoice;
}

function parseArgs(args: readonly string[]): InspectArgs {
  const flags = parseFlags(args, FLAGS);
  const configPath = flags.values.get('--config');
  const blockHash = flags.values.get('--block')?.toLowerCase();
  let source: BlockSource;
  if (blockHash !== undefined || configPath !== undefined) {
    if (blockHash === undefined || configPath === undefined)
      throw new UsageError('--block and --config go together');
    if (flags.positionals.length > 0) throw new UsageError('give either HEX or --block HASH, not both');
    if (!BLOCK_HASH_PATTERN.test(blockHash)) throw new UsageError('--block needs a block hash (64 hex)');
    source = { kind: 'record', configPath, blockHash };
  } else {
    if (flags.positionals.length !== 1) throw new UsageError('expected exactly one HEX argument');
    source = { kind: 'hex', hex: flags.positionals[0]!.trim() };
  }
  const difficultyText = flags.values.get('--difficulty');
  if (difficultyText !== undefined && !/^[1-9]\d{0,77}$/.test(difficultyText))
    throw new UsageError('--difficulty must be a whole number >= 1');
  const implementation = flags.values.get('--impl') ?? 'auto';
  if (!isPowImplementationChoice(implementation))
    throw new UsageError(`--impl must be one of ${POW_IMPLEMENTATION_CHOICES.join(', ')}`);
  return {
    source,
    difficulty: difficultyText === undefined ? undefined : BigInt(difficultyText),
    implementation,
  };
}

/**
 * `fuego-pool block inspect`: decodes a block blob (a template or a submitted block) and prints its
 * fields, block id and PoW input as JSON; for major version >= 2 also its cn/upx2 PoW hash and,
 * when a difficulty is known (`--difficulty`, or the network difficulty of a block record), the
 * target and whether the hash meets it. `--config FILE --block HASH` reads the blob the pool kept
 * in Redis for a found block (refused ones included). A malformed blob throws its CodecError (the
 * router prints it and exits 1).
 */
export const blockInspectCommand: CliCommand = {
  path: ['block', 'inspect'],
  usage: USAGE,
  summary:
    'decode a block blob (hex, or one the pool kept: --config FILE --block HASH) and print its fields, block id, PoW hash and target check as JSON',
  async run(args: string[], io: CliIo): Promise<number> {
    const parsed = parseArgs(args);
    let record: StoredBlockCandidate | undefined;
    let blobHex: string;
    if (parsed.source.kind === 'hex') {
      blobHex = parsed.source.hex;
    } else {
      record = await readBlockRecord(parsed.source.configPath, parsed.source.blockHash, io);
      if (record === undefined) return 1;
      if (record.blobHex === null) {
        writeLine(
          io.stderr,
          `fuego-pool block inspect: the record of ${record.hash} has no blob (written before blobs were kept)`,
        );
        return 1;
      }
      blobHex = record.blobHex;
    }
    const block = parseBlock(hexToBytes(blobHex));
    const view = describeBlock(block);
    if (block.majorVersion >= 2) {
      const hasher = loadHasher(parsed.implementation, {
        warn: (_obj, msg) => writeLine(io.stderr, `fuego-pool block inspect: warning: ${msg}`),
      });
      Object.assign(view, describeProofOfWork(block, hasher, parsed.difficulty ?? record?.networkDifficulty));
    }
    if (record !== undefined) view['blockRecord'] = describeRecord(record);
    writeLine(io.stdout, JSON.stringify(view, null, 2));
    return 0;
  },
};

/** The block record `<p>:block:<hash>` from the Redis of the config; undefined (after saying so) when absent. */
async function readBlockRecord(
  configPath: string,
  blockHash: string,
  io: CliIo,
): Promise<StoredBlockCandidate | undefined> {
  const config = loadPoolConfig(configPath);
  const logger = createLogger({ level: config.log.level });
  const redis = await connectRedis(config.redis, io.env, logger);
  try {
    const reader = new RedisLedgerReader({ keyPrefix: config.redis.keyPrefix }, { redis });
    const record = await reader.getBlockCandidate(blockHash);
    if (record === null) {
      writeLine(io.stderr, `fuego-pool block inspect: no block ${blockHash} in the pool's records`);
      return undefined;
    }
    return record;
  } finally {
    redis.disconnect();
  }
}

/**
 * The cn/upx2 hash of the block's PoW input (the parent hashing blob) and, with a difficulty, the
 * 256-bit target (most significant digit first) and the daemon's check: hash <= target.
 */
export function describeProofOfWork(
  block: Block,
  hasher: PowHasher,
  difficulty: bigint | undefined,
): Record<string, unknown> {
  const powHash = hasher.hash(parentHashingBlob(block));
  const view: Record<string, unknown> = {
    powHash: bytesToHex(powHash),
    powHashDifficulty: bigNumber(hashDifficulty(powHash)),
    powImplementation: hasher.implementation,
  };
  if (difficulty !== undefined) {
    view['difficulty'] = bigNumber(difficulty);
    view['target'] = blockTargetHex(difficulty);
    view['meetsTarget'] = checkHash(powHash, difficulty);
  }
  return view;
}

function describeRecord(record: StoredBlockCandidate): Record<string, unknown> {
  return {
    height: record.height,
    status: record.status,
    submitResult: record.submitResult,
    submitError: record.submitError,
    refusalReason: record.refusalReason,
    networkDifficulty: bigNumber(record.networkDifficulty),
    finderAddress: record.finderAddress,
    finderWorker: record.finderWorker,
    timestampMs: record.timestampMs,
  };
}

/** The JSON view of a block; 64-bit values are numbers when exact, decimal strings otherwise. */
export function describeBlock(block: Block): Record<string, unknown> {
  const base = block.baseTransaction.inputs[0];
  const view: Record<string, unknown> = {
    majorVersion: block.majorVersion,
    minorVersion: block.minorVersion,
    prevId: bytesToHex(block.prevId),
    timestamp: bigNumber(block.timestamp),
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
      tag === undefined ? null : { depth: bigNumber(tag.depth), root: bytesToHex(tag.merkleRoot) };
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
    unlockTime: bigNumber(tx.unlockTime),
    outputs: tx.outputs.map((output) =>
      output.kind === 'key'
        ? { amount: bigNumber(output.amount), key: bytesToHex(output.key) }
        : {
            amount: bigNumber(output.amount),
            keys: output.keys.map(bytesToHex),
            requiredSignatureCount: output.requiredSignatureCount,
            term: output.term,
          },
    ),
    reward: bigNumber(tx.outputs.reduce((sum, output) => sum + output.amount, 0n)),
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
        return { kind: field.kind, depth: bigNumber(field.depth), root: bytesToHex(field.merkleRoot) };
      case 'message':
        return { kind: field.kind, data: bytesToHex(field.data) };
      case 'ttl':
        return { kind: field.kind, ttl: bigNumber(field.ttl) };
      default:
        return { kind: field.kind, tag: field.tag };
    }
  });
}

/** A number when exact, a decimal string beyond 2^53. */
function bigNumber(value: bigint): number | string {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
}
