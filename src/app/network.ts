import { MAINNET_GENESIS_BLOCK_ID } from '../fuego/block-hash.js';
import { bytesToHex } from '../fuego/hex.js';

/**
 * Genesis block id (= `getcurrencyid`) per network. Mainnet's is computed from the genesis
 * block (nonce 70); testnet's (nonce 71) equals what a real fuegod reported, which is what makes
 * the computed mainnet id trustworthy (test/fuego/genesis-live-daemon.test.ts). The devnet is
 * not checked: it can be restarted with any chain.
 */
export const CURRENCY_IDS: Readonly<Record<'mainnet' | 'testnet', string>> = Object.freeze({
  mainnet: bytesToHex(MAINNET_GENESIS_BLOCK_ID),
  testnet: '3c1fde6ff5748526bab6b30e78b33643a238c5ff37d76d99ea6fed2173c4eba1',
});

export function expectedCurrencyId(
  network: 'mainnet' | 'testnet' | 'devnet',
  override: string | undefined,
): string | undefined {
  if (override !== undefined) return override;
  return network === 'devnet' ? undefined : CURRENCY_IDS[network];
}

/**
 * `payments.unlockNeedsDaemonPeers` as set, else per network: on where the daemon belongs to a
 * real network (an isolated one may be on a private fork), off on the devnet, which has no peers.
 */
export function unlockNeedsDaemonPeers(
  network: 'mainnet' | 'testnet' | 'devnet',
  override: boolean | undefined,
): boolean {
  return override ?? network !== 'devnet';
}
