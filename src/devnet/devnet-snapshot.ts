import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FUEGO_COINBASE_MATURITY_BLOCKS } from '../fuego/coinbase-maturity.js';
import { bytesToHex, hexToBytes } from '../fuego/hex.js';
import type { ChainState } from './chain/chain-state.js';
import { DevnetConfigError } from './devnet-config.js';

const SNAPSHOT_FILE = 'devnet-chain.json';

interface Snapshot {
  readonly version: 1;
  readonly difficulty: string;
  /** Absent in snapshots saved before it was a setting: they were all Fuego's 60. */
  readonly coinbaseMaturityBlocks?: number;
  readonly blocks: readonly { readonly blob: string; readonly transactions: readonly string[] }[];
  readonly mempool: readonly string[];
  readonly owners: readonly (readonly [string, string])[];
}

/**
 * Saves the main chain (from height 1), mempool and output-owner record to `dataDir`. Orphaned blocks
 * and the wallet's own notes (transfer lists of sent transactions) are not kept: after a restart the
 * wallet still sees its outputs and what is spent, but sent transactions show only what came back.
 */
export async function saveDevnetSnapshot(dataDir: string, chain: ChainState): Promise<void> {
  const snapshot: Snapshot = {
    version: 1,
    difficulty: chain.difficulty.toString(),
    coinbaseMaturityBlocks: chain.coinbaseMaturityBlocks,
    blocks: chain
      .mainChain()
      .slice(1)
      .map((block) => ({
        blob: bytesToHex(block.blob),
        transactions: block.transactions.map((tx) => bytesToHex(tx.bytes)),
      })),
    mempool: chain.mempool().map((tx) => bytesToHex(tx.bytes)),
    owners: [...chain.outputOwners.entries()],
  };
  await mkdir(dataDir, { recursive: true });
  const target = join(dataDir, SNAPSHOT_FILE);
  await writeFile(`${target}.tmp`, JSON.stringify(snapshot));
  await rename(`${target}.tmp`, target);
}

/**
 * Replays a saved chain into a fresh `ChainState`; returns the number of blocks restored (0 = none
 * saved). The chain must have the coinbase maturity the blocks were made with (their coinbase unlock
 * times encode it).
 */
export async function loadDevnetSnapshot(dataDir: string, chain: ChainState): Promise<number> {
  let text: string;
  try {
    text = await readFile(join(dataDir, SNAPSHOT_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  const snapshot = JSON.parse(text) as Snapshot;
  const savedMaturity = snapshot.coinbaseMaturityBlocks ?? FUEGO_COINBASE_MATURITY_BLOCKS;
  if (savedMaturity !== chain.coinbaseMaturityBlocks) {
    throw new DevnetConfigError(
      'INVALID_DEVNET_CONFIG',
      `devnet config daemon.coinbaseMaturityBlocks: the chain saved in ${dataDir} was made with ${savedMaturity}, not ${chain.coinbaseMaturityBlocks}`,
      { key: 'daemon.coinbaseMaturityBlocks' },
    );
  }
  for (const [key, address] of snapshot.owners) chain.outputOwners.record(key, address);
  chain.setDifficulty(BigInt(snapshot.difficulty));
  for (const block of snapshot.blocks) {
    for (const tx of block.transactions) chain.addTransaction(hexToBytes(tx));
    const result = chain.restoreBlock(hexToBytes(block.blob));
    if (!result.accepted)
      throw new Error(`saved devnet block does not replay: ${result.code} ${result.detail}`);
  }
  for (const tx of snapshot.mempool) chain.addTransaction(hexToBytes(tx));
  return snapshot.blocks.length;
}
