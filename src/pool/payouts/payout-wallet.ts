import type { WalletClient } from '../../rpc/wallet-client.js';

/** The walletd calls a payout run needs (src/rpc/wallet-client.ts). */
export type PayoutWallet = Pick<
  WalletClient,
  | 'getStatus'
  | 'getBalance'
  | 'getAddresses'
  | 'getTransactions'
  | 'getTransaction'
  | 'getUnconfirmedTransactionHashes'
  | 'sendTransaction'
>;
