import { expect, test } from 'vitest';
import { WalletAppError } from '../../src/devnet/wallet/wallet-errors.js';
import { WALLET_ERRORS } from '../../src/rpc/wallet-client.js';

test("every walletd error the pool's client names is one the devnet knows, code and message alike", () => {
  const devnet = new Set(Object.values(WalletAppError).map((e) => `${e.code} ${e.message}`));
  const unknown = Object.entries(WALLET_ERRORS).filter(
    ([, e]) => !devnet.has(`${e.applicationCode} ${e.message}`),
  );
  expect(unknown).toEqual([]);
});
