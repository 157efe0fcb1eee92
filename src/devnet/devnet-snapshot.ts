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
  readonly blocks: readonly {
    readonly blob: string;
    readonly transactions: readonly string[];
    /** The block's own difficulty (absent in older snapshots: the saved setting). */
    readonly difficulty?: string;
  }[];
  readonly mempool: readonly string[];
  readonly owners: readonly (readonly [string, string])[];
  /** Alternative blocks, oldest first: after a restart the network's, not the daemon's (network-blocks.ts). */
  readonly alternatives?: readonly {
    readonly blob: string;
    readonly difficulty: string;
    readonly height: number;
  }[];
  /** Ids of the branch the last reorg took off (the devnet control's reorgBack). */
  readonly lastOrphaned?: readonly string[];
}

/**
 * Saves the main chain (from height 1, each block with its difficulty), mempool, output-owner record
 * and alternative blocks to `dataDir`. The wallet's own notes (transfer lists of sent transactions)
 * are not kept: after a restart the wallet still sees its outputs and what is spent, but sent
 * transactions show only what came back. Alternative blocks come back as the rest of the network's,
 * not the daemon's (fuegod keeps them in memory only; see network-blocks.ts).
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
        difficulty: block.difficulty.toString(),
      })),
    mempool: chain.mempool().map((tx) => bytesToHex(tx.bytes)),
    owners: [...chain.outputOwners.entries()],
    alternatives: [...chain.alternativeBlocks(), ...chain.network.all()]
      .sort((a, b) => a.height - b.height)
      .map((block) => ({
        blob: bytesToHex(block.blob),
        difficulty: block.difficulty.toString(),
        height: block.height,
      })),
    lastOrphaned: chain.lastOrphanedIds,
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
  for (const block of snapshot.blocks) {
    chain.setDifficulty(BigInt(block.difficulty ?? snapshot.difficulty));
    for (const tx of block.transactions) chain.addTransaction(hexToBytes(tx));
    const result = chain.restoreBlock(hexToBytes(block.blob));
    if (!result.accepted)
      throw new Error(`saved devnet block does not replay: ${result.code} ${result.detail}`);
  }
  chain.setDifficulty(BigInt(snapshot.difficulty));
  for (const tx of snapshot.mempool) chain.addTransaction(hexToBytes(tx));
  for (const block of snapshot.alternatives ?? [])
    chain.network.hold(hexToBytes(block.blob), BigInt(block.difficulty), block.height);
  chain.lastOrphanedIds = snapshot.lastOrphaned ?? [];
  return snapshot.blocks.length;
}
