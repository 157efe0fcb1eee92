import { describe, expect, it } from 'vitest';
import { BLOCK_REFUSAL_REASONS } from '../../src/model/block-refusal-reason.js';
import { type ChainTipReader, diagnoseBlockRefusal, likelyCauseOf } from '../../src/pool/block-refusal.js';

const PREV = 'aa'.repeat(32);
const BLOCK = { height: 10, hash: 'bb'.repeat(32), prevHash: PREV };

function chain(tip: { height: number; hash: string }, atHeight: Record<number, string> = {}): ChainTipReader {
  return {
    getLastBlockHeader: async () => tip,
    getBlockHeaderByHeight: async (height) => {
      const hash = atHeight[height];
      if (hash === undefined) throw new Error('To big height');
      return { hash };
    },
  };
}

describe('diagnoseBlockRefusal', () => {
  it('tells the four cases apart from the tip and the block at its height', async () => {
    expect(await diagnoseBlockRefusal(chain({ height: 9, hash: PREV }), BLOCK, 1_000)).toEqual({
      reason: 'pow-disagreement',
      tipMoved: false,
      onChain: false,
      tipHeight: 9,
      tipHash: PREV,
    });
    const other = 'cc'.repeat(32);
    expect(
      await diagnoseBlockRefusal(chain({ height: 10, hash: other }, { 10: other }), BLOCK, 1_000),
    ).toMatchObject({ reason: 'stale-tip', tipMoved: true, onChain: false });
    expect(
      await diagnoseBlockRefusal(chain({ height: 11, hash: other }, { 10: BLOCK.hash }), BLOCK, 1_000),
    ).toMatchObject({ reason: 'already-on-chain', tipMoved: true, onChain: true });
    expect(await diagnoseBlockRefusal(chain({ height: 10, hash: BLOCK.hash }), BLOCK, 1_000)).toMatchObject({
      reason: 'already-on-chain',
      onChain: true,
    });
  });

  it('is unknown, not an error, when the daemon fails or does not answer in time', async () => {
    const failing: ChainTipReader = {
      getLastBlockHeader: async () => {
        throw new Error('connection refused');
      },
      getBlockHeaderByHeight: async () => ({ hash: BLOCK.hash }),
    };
    expect(await diagnoseBlockRefusal(failing, BLOCK, 1_000)).toEqual({
      reason: 'unknown',
      tipMoved: null,
      onChain: null,
      tipHeight: null,
      tipHash: null,
      error: 'connection refused',
    });
    const silent: ChainTipReader = {
      getLastBlockHeader: () => new Promise(() => undefined),
      getBlockHeaderByHeight: () => new Promise(() => undefined),
    };
    const started = Date.now();
    expect(await diagnoseBlockRefusal(silent, BLOCK, 50)).toMatchObject({ reason: 'unknown' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('names a cause for every reason; the daemon-side ones say how to build fuegod', () => {
    for (const reason of BLOCK_REFUSAL_REASONS) expect(likelyCauseOf(reason)).not.toBe('');
    expect(likelyCauseOf('pow-disagreement')).toMatch(/RelWithDebInfo/);
    expect(likelyCauseOf('unknown')).toMatch(/stale tip.*-O2/);
  });
});
