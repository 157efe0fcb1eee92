import type { DemoStackOptions } from '../../src/app/demo-stack.js';

/**
 * The demo stack as the e2e tests run it: every port free-chosen on 127.0.0.1, and difficulties so
 * low that one XMRig thread finds shares about every second and devnet blocks every few.
 */
export const E2E_STACK_OPTIONS: DemoStackOptions = Object.freeze({
  stratumPort: 0,
  tlsPort: null,
  networkDifficulty: 4_000,
  shareDifficulty: 300,
  daemonPort: 0,
  walletPort: 0,
  apiPort: 0,
});
