import { describe, expect, it } from 'vitest';
import {
  DaemonChainTrust,
  judgeDaemonChain,
  SYNCING_TOLERANCE_BLOCKS,
} from '../../../src/leader/unlocker/daemon-chain-trust.js';
import { type DaemonInfo, daemonInfoSchema } from '../../../src/rpc/daemon-schemas.js';
import { readJsonFixture } from '../../helpers/fixtures.js';
import { captureLogs } from '../../helpers/log-capture.js';

/** fuegod 1.9.3 without peers at height 16: last_known_block_index 14 (height - 2). */
const ISOLATED: DaemonInfo = daemonInfoSchema.parse(
  readJsonFixture('fuegod-rpc/66-getinfo-v9.response.body'),
);

function infoWith(facts: Partial<DaemonInfo>): DaemonInfo {
  return { ...ISOLATED, ...facts };
}

/** Synced with 8 outgoing peers at height 16 (the peers know no more). */
const SYNCED = infoWith({ outgoing_connections_count: 8, last_known_block_index: 15 });

describe('judgeDaemonChain', () => {
  it('the captured isolated fuegod (no peers) is not trusted', () => {
    expect(judgeDaemonChain(ISOLATED)).toEqual({
      trusted: false,
      reason: 'daemon-isolated',
      detail: 'the daemon has no peer connections',
    });
  });

  it('one peer, outgoing or incoming, is enough', () => {
    expect(judgeDaemonChain(infoWith({ outgoing_connections_count: 1 }))).toEqual({ trusted: true });
    expect(judgeDaemonChain(infoWith({ incoming_connections_count: 1 }))).toEqual({ trusted: true });
  });

  it('syncing: the peers know more than the tolerance above its height', () => {
    const atTolerance = infoWith({ ...SYNCED, last_known_block_index: 15 + SYNCING_TOLERANCE_BLOCKS });
    expect(judgeDaemonChain(atTolerance)).toEqual({ trusted: true });
    const beyond = infoWith({ ...SYNCED, last_known_block_index: 16 + SYNCING_TOLERANCE_BLOCKS });
    expect(judgeDaemonChain(beyond)).toEqual({
      trusted: false,
      reason: 'daemon-syncing',
      detail: `the daemon is at height 16, its peers know height ${17 + SYNCING_TOLERANCE_BLOCKS}`,
    });
  });

  it('a known height below its own says nothing (only ahead means syncing)', () => {
    expect(judgeDaemonChain(infoWith({ ...SYNCED, last_known_block_index: 0 }))).toEqual({ trusted: true });
  });

  it('no peers is reported before syncing', () => {
    expect(judgeDaemonChain(infoWith({ last_known_block_index: 1_000 }))).toMatchObject({
      reason: 'daemon-isolated',
    });
  });
});

describe('DaemonChainTrust', () => {
  function trustOver(infos: DaemonInfo[]) {
    const capture = captureLogs('info');
    let next = 0;
    const daemon = { getInfo: async () => infos[Math.min(next++, infos.length - 1)]! };
    return { trust: new DaemonChainTrust({ daemon, logger: capture.logger }), records: capture.records };
  }

  it('answers each run, warns once per change of reason and says when it is trusted again', async () => {
    const syncing = infoWith({ ...SYNCED, last_known_block_index: 100 });
    const { trust, records } = trustOver([SYNCED, ISOLATED, ISOLATED, syncing, syncing, SYNCED, SYNCED]);
    const answers = [];
    for (let run = 0; run < 7; run++) answers.push(await trust.distrust());
    expect(answers).toEqual([
      null,
      'daemon-isolated',
      'daemon-isolated',
      'daemon-syncing',
      'daemon-syncing',
      null,
      null,
    ]);
    expect(records.map((r) => [r['level'], r['reason'] ?? null])).toEqual([
      [40, 'daemon-isolated'],
      [40, 'daemon-syncing'],
      [30, null],
    ]);
    expect(records[0]).toMatchObject({ height: 16, knownHeight: 15, peers: 0 });
    expect(records[1]).toMatchObject({ height: 16, knownHeight: 101, peers: 8 });
  });

  it('a getinfo that fails is thrown: the run cannot judge the chain', async () => {
    const daemon = { getInfo: () => Promise.reject(new Error('connect ECONNREFUSED')) };
    const trust = new DaemonChainTrust({ daemon, logger: captureLogs().logger });
    await expect(trust.distrust()).rejects.toThrow('ECONNREFUSED');
  });
});
