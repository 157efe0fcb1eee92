import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL_BACKEND_OPTIONS } from '../helpers/config-defaults.js';
import {
  ADDRESS,
  activeTemplate,
  connection,
  FakeSink,
  fakePoolBackend,
  flushImmediates,
  mine,
} from './pool-fakes.js';

const GRACE_MS = DEFAULT_POOL_BACKEND_OPTIONS.staleGraceMs;

/**
 * A new block reaches the miners one chunk of sessions per event-loop turn: with 100,000 miners
 * the last ones get their job seconds after the tip changed (README, Performance: push p99 3-5 s).
 * Until its new job arrives a miner can only mine the old one, so its shares on it are not late.
 */
describe('stale grace after a new block, per miner', () => {
  function setup() {
    // One session per event-loop turn: the second miner's push comes a turn after the first's.
    const { clock, templates, ledger, backend } = fakePoolBackend({ broadcastChunkSize: 1 });
    const login = async () => {
      const sink = new FakeSink();
      const result = await backend.login(
        { login: `${ADDRESS}+1`, pass: 'x', agent: 'XMRig/6.16.0', algo: ['cn/upx2'] },
        connection(),
        sink,
      );
      return { ...result, sink };
    };
    return { clock, templates, ledger, backend, login };
  }

  it('runs from the moment the miner was sent its job on the new tip, not from the tip change', async () => {
    const { clock, templates, ledger, backend, login } = setup();
    const early = await login();
    const late = await login();
    templates.emit(activeTemplate(2, 11, 1n << 60n), 'new-block');
    expect(early.sink.jobs).toHaveLength(1);
    expect(late.sink.jobs).toHaveLength(0); // its push waits for a later turn

    // The broadcast is slow (a busy pool): the grace has passed since the tip changed.
    clock.advance(GRACE_MS + 500);
    // The first miner has had its new job all that time: its share on the old one is late.
    await expect(
      backend.submit(early.sessionId, { jobId: early.job.job_id, ...mine(early.job, 1) }),
    ).rejects.toMatchObject({ code: 'BLOCK_EXPIRED' });
    // The second has not been told of the block yet: credited (stale, never a block).
    await backend.submit(late.sessionId, { jobId: late.job.job_id, ...mine(late.job, 1) });
    expect(ledger.shares.at(-1)).toMatchObject({ stale: true, height: 10 });

    await flushImmediates();
    expect(late.sink.jobs.at(-1)).toMatchObject({ height: 11 });
    // Its own grace runs from now.
    clock.advance(GRACE_MS);
    await backend.submit(late.sessionId, { jobId: late.job.job_id, ...mine(late.job, 2) });
    expect(ledger.shares).toHaveLength(2);
    clock.advance(1);
    await expect(
      backend.submit(late.sessionId, { jobId: late.job.job_id, ...mine(late.job, 3) }),
    ).rejects.toMatchObject({ code: 'BLOCK_EXPIRED' });
  });
});
