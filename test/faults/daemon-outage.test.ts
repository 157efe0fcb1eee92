import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoStack } from '../../src/app/demo-stack.js';
import { SyntheticMiner, startFaultStack, waitFor } from './fault-kit.js';

/**
 * The daemon unreachable for 60 s while a miner mines (slow suite; FUEGO_SLOW=1, about 80 s):
 * the miner keeps mining the last job and its shares are accepted, nothing crashes; when the
 * daemon returns the pool picks up the new chain tip by itself and blocks are accepted again.
 * FUEGO_OUTAGE_MS shortens the outage for a quick local run.
 */
const SLOW = process.env['FUEGO_SLOW'] === '1';
const OUTAGE_MS = Number(process.env['FUEGO_OUTAGE_MS'] ?? 60_000);

describe.skipIf(!SLOW)('fault: daemon unreachable for 60 s', () => {
  let stack: DemoStack;
  let miner: SyntheticMiner;

  beforeAll(async () => {
    // ~20 hashes/s from the synthetic miner: a block every few seconds at difficulty 60.
    stack = await startFaultStack({ networkDifficulty: 60 });
    miner = new SyntheticMiner(stack.stratumPort, stack.minerAddress, 'outage', 40);
    miner.start();
  }, 120_000);

  afterAll(async () => {
    await miner?.stop();
    await stack?.stop();
  });

  it(
    'keeps accepting shares on the last job, then resumes on a fresh template with blocks accepted',
    async () => {
      const backend = stack.pool.stratumRole!.backend;
      const templates = stack.pool.stratumRole!.templates;
      await waitFor(() => (backend.metrics.blocksAccepted >= 1 ? true : undefined), 60_000, 'a first block');

      const heightBefore = stack.devnet.chain.mainChain().length;
      await stack.devnet.control.setDaemonAvailability({ kind: 'unreachable' });
      const downAt = Date.now();
      const okAtDown = miner.counts.ok;
      // The chain moves on without the pool seeing it (another pool found a block meanwhile).
      stack.devnet.control.mineBlocks(1);
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      const okDuringOutage = miner.okTimesMs.filter((t) => t > downAt + 5_000).length;
      const blockErrorsDuringOutage = backend.metrics.blockSubmitErrors;
      const acceptedBeforeReturn = backend.metrics.blocksAccepted;

      await stack.devnet.control.setDaemonAvailability({ kind: 'up' });
      const upAt = Date.now();
      const tipHeight = stack.devnet.chain.mainChain().length;
      // A template for the new tip arrives by itself (no pool restart, no manual poll).
      await waitFor(
        () =>
          templates.current() !== undefined && templates.current()!.height > tipHeight - 1 ? true : undefined,
        30_000,
        'a template on the new chain tip',
      );
      const templateMs = Date.now() - upAt;
      await waitFor(
        () => (backend.metrics.blocksAccepted > acceptedBeforeReturn ? true : undefined),
        60_000,
        'a block accepted after the outage',
      );
      console.info(
        `daemon outage ${OUTAGE_MS} ms: ${miner.counts.ok - okAtDown} OK shares since the outage began ` +
          `(${okDuringOutage} during it after the first 5 s), ${blockErrorsDuringOutage} block submits failed, ` +
          `new template ${templateMs} ms after return, chain ${heightBefore} -> ${stack.devnet.chain.mainChain().length}, ` +
          `errors ${JSON.stringify(Object.fromEntries(miner.counts.errors))}`,
      );
      expect(okDuringOutage).toBeGreaterThan(0);
      expect(miner.counts.connections).toBe(1);
      expect(stack.devnet.chain.mainChain().length).toBeGreaterThan(tipHeight);
    },
    OUTAGE_MS + 180_000,
  );
});
