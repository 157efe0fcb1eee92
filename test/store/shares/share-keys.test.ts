import { describe, expect, it } from 'vitest';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';

describe('createShareKeys', () => {
  it('puts every key of a pool under one hash tag', () => {
    const keys = createShareKeys('fuego');
    const all = [
      keys.shares,
      keys.roundCurrent,
      keys.roundCurrentMeta,
      keys.closedRound(123, 'ab'.repeat(32)),
      keys.blockCandidates,
      keys.blocksRejected,
      keys.blocksWindowPending,
      keys.blocksAnnouncePending,
      keys.block('ab'.repeat(32)),
      keys.blockWindow('ab'.repeat(32)),
      keys.miner('fireAddress'),
      keys.worker('fireAddress', 'rig:1'),
    ];
    expect(keys.tag).toBe('{fuego}');
    for (const key of all) expect(key.startsWith('{fuego}:')).toBe(true);
    expect(keys.shares).toBe('{fuego}:shares');
    expect(keys.closedRound(123, 'ff')).toBe('{fuego}:round:123:ff');
    expect(keys.worker('fireAddress', 'rig:1')).toBe('{fuego}:worker:fireAddress:rig:1');
    expect(new Set(all).size).toBe(all.length);
  });

  it('refuses a prefix that would break the hash tag', () => {
    for (const prefix of ['', 'a}b', '{x}', 'Fuego', 'x'.repeat(33), 'a:b']) {
      expect(() => createShareKeys(prefix)).toThrow(expect.objectContaining({ code: 'INVALID_KEY_PREFIX' }));
    }
  });
});
