import { z } from 'zod';

/** Shapes of the real walletd 1.9.3 replies (test/fixtures/walletd-rpc). Not strict: see daemon-schemas. */

const hash64 = z.string().regex(/^[0-9a-f]{64}$/);
const uint = z.number().int().nonnegative();

export const walletStatusSchema = z.object({
  blockCount: uint,
  knownBlockCount: uint,
  lastBlockHash: z.string(),
  peerCount: uint,
  depositCount: uint,
  transactionCount: uint,
  addressCount: uint,
});
export type WalletStatus = z.infer<typeof walletStatusSchema>;

export const walletBalanceSchema = z.object({
  availableBalance: uint,
  lockedAmount: uint,
  lockedDepositBalance: uint,
  unlockedDepositBalance: uint,
});
export type WalletBalance = z.infer<typeof walletBalanceSchema>;

export const addressesSchema = z.object({ addresses: z.array(z.string()) });

export const transferSchema = z.object({
  type: z.number().int(),
  address: z.string(),
  amount: z.number().int(),
  message: z.string(),
});

export const walletTransactionSchema = z.object({
  state: z.number().int(),
  transactionHash: hash64,
  /** 4294967295 while unconfirmed. */
  blockIndex: uint,
  timestamp: uint,
  confirmations: uint,
  isBase: z.boolean(),
  unlockTime: uint,
  amount: z.number().int(),
  fee: uint,
  transfers: z.array(transferSchema),
  extra: z.string(),
  paymentId: z.string(),
  /** -1, all-ones or garbage when no deposit is involved: never interpret it. */
  firstDepositId: z.number(),
  depositCount: uint,
});
export type WalletTransaction = z.infer<typeof walletTransactionSchema>;

export const transactionsSchema = z.object({
  items: z.array(z.object({ blockHash: z.string(), transactions: z.array(walletTransactionSchema) })),
});

export const transactionHashesSchema = z.object({
  items: z.array(z.object({ blockHash: z.string(), transactionHashes: z.array(hash64) })),
});

export const singleTransactionSchema = z.object({ transaction: walletTransactionSchema });
export const unconfirmedHashesSchema = z.object({ transactionHashes: z.array(hash64) });

export const sendTransactionSchema = z.object({
  transactionHash: hash64,
  transactionSecretKey: z.string().optional(),
});

export const estimateFusionSchema = z.object({ fusionReadyCount: uint, totalOutputCount: uint });
export type FusionEstimate = z.infer<typeof estimateFusionSchema>;

export const sendFusionTransactionSchema = z.object({ transactionHash: hash64 });
