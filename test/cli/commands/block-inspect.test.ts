import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/command.js';
import { UsageError } from '../../../src/cli/command.js';
import { blockInspectCommand } from '../../../src/cli/commands/block-inspect.js';
import { blockTargetHex } from '../../../src/fuego/difficulty.js';
import { CodecError } from '../../../src/fuego/errors.js';
import { readJsonFixture } from '../../helpers/fixtures.js';

interface Vectors {
  genesis: { block_blob: string; block_id: string; hashing_blob: string; coinbase_tx_hash: string };
  block_v9_pool_flow: {
    submitblock_blob: string;
    block_id: string;
    hashing_blob_with_nonce: string;
    miner_nonce_uint32: number;
    pow_hash: string;
    pow_hash_max_difficulty: number;
    'aux_header_hash_(mm_merkle_root)': string;
    template: { blocktemplate_blob: string; height: number; prev_id: string; timestamp: number };
  };
}

const vectors = readJsonFixture<Vectors>('vectors/format.json');

async function inspect(args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const io: CliIo = { stdout, stderr, stdin: new PassThrough(), env: {} };
  const code = await blockInspectCommand.run(args, io);
  return { code, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> };
}

describe('fuego-pool block inspect', () => {
  it('is registered under block inspect', () => {
    expect(blockInspectCommand.path).toEqual(['block', 'inspect']);
    expect(blockInspectCommand.usage).toMatch(
      /^fuego-pool block inspect \(HEX \[--difficulty N\] \| --config FILE --block HASH/,
    );
  });

  it('prints the cn/upx2 PoW hash of a v9 block and, with --difficulty, the target and whether the hash meets it', async () => {
    const v = vectors.block_v9_pool_flow;
    const maxDifficulty = v.pow_hash_max_difficulty;
    const plain = await inspect([v.submitblock_blob]);
    expect(plain.json).toMatchObject({ powHash: v.pow_hash, powHashDifficulty: maxDifficulty });
    expect(plain.json).not.toHaveProperty('meetsTarget');

    const meets = await inspect([v.submitblock_blob, '--difficulty', String(maxDifficulty)]);
    expect(meets.json).toMatchObject({
      blockId: v.block_id,
      powHash: v.pow_hash,
      difficulty: maxDifficulty,
      target: blockTargetHex(maxDifficulty),
      meetsTarget: true,
    });
    const misses = await inspect(['--difficulty', String(maxDifficulty + 1), v.submitblock_blob]);
    expect(misses.json).toMatchObject({ meetsTarget: false });
  });

  it('prints a v9 pool block with its PoW input and a valid merge-mining tag', async () => {
    const v = vectors.block_v9_pool_flow;
    const { code, json } = await inspect([v.submitblock_blob]);
    expect(code).toBe(0);
    expect(json).toMatchObject({
      majorVersion: 9,
      minorVersion: 0,
      prevId: v.template.prev_id,
      timestamp: v.template.timestamp,
      nonce: v.miner_nonce_uint32,
      height: v.template.height,
      blockId: v.block_id,
      hashingBlob: v.hashing_blob_with_nonce,
      parentMajorVersion: 1,
      mergeMiningTag: { depth: 0, root: v['aux_header_hash_(mm_merkle_root)'] },
      mergeMiningTagValid: true,
    });
    expect(json['txHashes']).toEqual(['11'.repeat(32), '22'.repeat(32)]);
    expect(typeof json['minerTxHash']).toBe('string');
  });

  it('reports the template as returned (zero mm root) as not valid', async () => {
    const { json } = await inspect([vectors.block_v9_pool_flow.template.blocktemplate_blob]);
    expect(json['parentMajorVersion']).toBe(0);
    expect(json['mergeMiningTag']).toEqual({ depth: 0, root: '00'.repeat(32) });
    expect(json['mergeMiningTagValid']).toBe(false);
  });

  it('prints the v1 genesis block without parent fields', async () => {
    const g = vectors.genesis;
    const { code, json } = await inspect([g.block_blob]);
    expect(code).toBe(0);
    expect(json).toMatchObject({
      majorVersion: 1,
      nonce: 70,
      height: 0,
      blockId: g.block_id,
      minerTxHash: g.coinbase_tx_hash,
      hashingBlob: g.hashing_blob,
      txHashes: [],
    });
    expect(json).not.toHaveProperty('mergeMiningTag');
    // Major 1 is not cn/upx2: no PoW hash is claimed for it.
    expect(json).not.toHaveProperty('powHash');
  });

  it('throws the CodecError for bad hex and bad blobs, UsageError for wrong arguments', async () => {
    await expect(inspect(['zz'])).rejects.toMatchObject({ code: 'BAD_HEX' });
    await expect(inspect(['0100deadbeef'])).rejects.toBeInstanceOf(CodecError);
    await expect(inspect([`${vectors.genesis.block_blob}00`])).rejects.toMatchObject({
      code: 'TRAILING_BYTES',
    });
    await expect(inspect([])).rejects.toBeInstanceOf(UsageError);
    await expect(inspect(['00', '00'])).rejects.toBeInstanceOf(UsageError);
    const blob = vectors.genesis.block_blob;
    for (const args of [
      [blob, '--difficulty', '0'],
      [blob, '--difficulty', '1.5'],
      [blob, '--impl', 'fastest'],
      ['--block', 'ab'.repeat(32)],
      ['--config', 'pool.json'],
      ['--config', 'pool.json', '--block', 'xyz'],
      [blob, '--config', 'pool.json', '--block', 'ab'.repeat(32)],
    ]) {
      await expect(inspect(args), args.join(' ')).rejects.toBeInstanceOf(UsageError);
    }
  });
});
