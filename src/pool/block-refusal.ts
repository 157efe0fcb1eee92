/**
 * Why the daemon refused a block whose proof of work the pool verified. fuegod answers every
 * refusal with the same `-7 Block not accepted` and logs nothing at its default level, so the pool
 * asks the chain afterwards and names the likely cause.
 */

import type { BlockRefusalReason } from '../model/block-refusal-reason.js';
/** The daemon reads a diagnosis needs (DaemonClient has them). */
export interface ChainTipReader {
  /** The top block: `height` is its index, so a template built on it has height + 1. */
  getLastBlockHeader(): Promise<{ readonly height: number; readonly hash: string }>;
  getBlockHeaderByHeight(height: number): Promise<{ readonly hash: string }>;
}

/** The refused block as the pool built it. */
export interface RefusedBlock {
  readonly height: number;
  /** Block id (hex). */
  readonly hash: string;
  /** The block the template built on. */
  readonly prevHash: string;
}

export interface BlockRefusalDiagnosis {
  readonly reason: BlockRefusalReason;
  /** null when the daemon could not be asked. */
  readonly tipMoved: boolean | null;
  readonly onChain: boolean | null;
  readonly tipHeight: number | null;
  readonly tipHash: string | null;
  /** Why the daemon could not be asked (reason `unknown`). */
  readonly error?: string;
}

/** How to make a fuegod whose cn/upx2 agrees with XMRig's (shared/spec/fuego-daemon-behaviour.md). */
const REBUILD_ADVICE =
  'a fuegod built with GCC -O3 (the default Release build) miscompiles src/crypto/jh.c and refuses ' +
  'about 1 valid block in 4: rebuild it at -O2 (cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo, or ' +
  '-DCMAKE_C_FLAGS_RELEASE=-O2); README "Blocks refused by the daemon" tells how to check a build';

const LIKELY_CAUSES: Readonly<Record<BlockRefusalReason, string>> = Object.freeze({
  'stale-tip':
    'stale tip: another block reached the daemon between the template and the submit (normal now ' +
    'and then; often means the daemon is behind its peers or template polling is slow); the daemon ' +
    'keeps the block as an alternative one, and the leader checks the chain later and credits the ' +
    'block if a reorg puts it on the main chain',
  'already-on-chain':
    'the daemon already had this block (it is on the chain at its height): a duplicate submit (two ' +
    'stratum nodes, a resubmit) or a daemon answering -7 for a block it took; nothing is lost: the ' +
    'pool records it as found (pending, closing the round) and credits it at unlock like any block',
  'pow-disagreement':
    'the tip did not move and the block is not on the chain although its proof of work meets the ' +
    `target by XMRig's cn/upx2: the daemon most likely computes a different cn/upx2; ${REBUILD_ADVICE}`,
  unknown:
    'the daemon could not be asked (the leader checks the chain later and credits the block if it ' +
    `is there); likely a stale tip, or a daemon whose cn/upx2 disagrees: ${REBUILD_ADVICE}`,
});

export function likelyCauseOf(reason: BlockRefusalReason): string {
  return LIKELY_CAUSES[reason];
}

/**
 * Asks the daemon whether the tip moved since the template and whether the block is on the chain
 * now, within `timeoutMs` (a diagnosis that cannot finish is `unknown`, never an error). Asked
 * after the refusal, so a block arriving in between reads as a stale tip.
 */
export async function diagnoseBlockRefusal(
  chain: ChainTipReader,
  block: RefusedBlock,
  timeoutMs: number,
): Promise<BlockRefusalDiagnosis> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([askChain(chain, block), deadline]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      reason: 'unknown',
      tipMoved: null,
      onChain: null,
      tipHeight: null,
      tipHash: null,
      error: message.slice(0, 200),
    };
  } finally {
    clearTimeout(timer);
  }
}

async function askChain(chain: ChainTipReader, block: RefusedBlock): Promise<BlockRefusalDiagnosis> {
  const tip = await chain.getLastBlockHeader();
  const tipMoved = tip.hash !== block.prevHash;
  // A chain whose top is below the block's height cannot hold it (and -2 would be the answer).
  let onChain = false;
  if (tip.hash === block.hash) onChain = true;
  else if (tip.height >= block.height)
    onChain = (await chain.getBlockHeaderByHeight(block.height)).hash === block.hash;
  const reason: BlockRefusalReason = onChain
    ? 'already-on-chain'
    : tipMoved
      ? 'stale-tip'
      : 'pow-disagreement';
  return { reason, tipMoved, onChain, tipHeight: tip.height, tipHash: tip.hash };
}
