import { z } from 'zod';

/**
 * Shapes of the real fuegod 1.9.3 replies (test/fixtures/fuegod-rpc). Objects are not strict:
 * newer daemons may add fields, and that must not take the pool down.
 */

const hash64 = z.string().regex(/^[0-9a-f]{64}$/);
const uint = z.number().int().nonnegative();

export const daemonInfoSchema = z.object({
  status: z.string(),
  version: z.string(),
  height: uint,
  difficulty: uint,
  tx_count: uint,
  tx_pool_size: uint,
  alt_blocks_count: uint,
  outgoing_connections_count: uint,
  incoming_connections_count: uint,
  white_peerlist_size: uint,
  grey_peerlist_size: uint,
  last_known_block_index: uint,
  top_block_hash: hash64,
  fee_address: z.string().optional(),
  block_major_version: uint,
  block_minor_version: uint,
  full_deposit_amount: uint,
  last_block_reward: uint,
  last_block_timestamp: uint,
  last_block_difficulty: uint,
});
export type DaemonInfo = z.infer<typeof daemonInfoSchema>;

export const blockHeaderSchema = z.object({
  major_version: uint,
  minor_version: uint,
  timestamp: uint,
  prev_hash: hash64,
  nonce: uint,
  orphan_status: z.boolean(),
  height: uint,
  depth: uint,
  deposits: uint,
  hash: hash64,
  difficulty: uint,
  reward: uint,
});
export type BlockHeader = z.infer<typeof blockHeaderSchema>;

/** `f_blocks_list_json`: the main chain's blocks from the asked height down (other fields not read). */
export const blocksListSchema = z.object({
  blocks: z.array(z.object({ height: uint, hash: hash64 })),
  status: z.string(),
});
export type ListedBlock = z.infer<typeof blocksListSchema>['blocks'][number];

export const blockHeaderResultSchema = z.object({ block_header: blockHeaderSchema, status: z.string() });

export const blockTemplateSchema = z.object({
  blocktemplate_blob: z.string().regex(/^(?:[0-9a-f]{2})+$/),
  difficulty: uint,
  height: uint,
  reserved_offset: uint,
  status: z.string(),
});
export type BlockTemplateResponse = z.infer<typeof blockTemplateSchema>;

export const heightSchema = z.object({ height: uint, status: z.string() });
export const blockCountSchema = z.object({ count: uint, status: z.string() });
export const currencyIdSchema = z.object({ currency_id_blob: hash64 });
export const statusSchema = z.object({ status: z.string() });

/** f_transaction_json of a transaction in a block (capture 75): the block it is in, and its body. */
export const transactionBlockSchema = z.object({
  block: z.object({ hash: hash64, height: uint }),
  tx: z.unknown().optional(),
});
/**
 * The amounts of f_transaction_json's `tx` (capture 75): each input's type ("02" a key input,
 * "03" a deposit spend, "ff" a coinbase) and amount, each output's amount, in atomic units. Read
 * apart from transactionBlockSchema: a body this does not fit leaves only the fee unknown.
 */
export const transactionAmountsSchema = z.object({
  vin: z.array(z.object({ type: z.string(), value: z.object({ amount: uint.optional() }) })),
  vout: z.array(z.object({ amount: uint })),
});
/** f_on_transactions_pool_json (captures 18, 70): the transactions in the daemon's pool. */
export const poolTransactionsSchema = z.object({ transactions: z.array(z.object({ hash: hash64 })) });
export const feeAddressSchema = z.object({ fee_address: z.string(), status: z.string() });

export const aliasSchema = z.object({
  found: z.boolean(),
  alias: z.string(),
  address: z.string(),
  status: z.string(),
});
export type AliasLookup = z.infer<typeof aliasSchema>;

export const feePoolInfoSchema = z.object({
  fee_pool_balance: uint,
  current_epoch_swap_fees: uint,
  total_cd_locked: uint,
  current_epoch_number: uint,
  status: z.string(),
});
export type FeePoolInfo = z.infer<typeof feePoolInfoSchema>;

export const heatDepositSchema = z.object({
  id: uint,
  amount: uint,
  term: uint,
  unlock_height: uint,
  creating_tx_hash: z.string(),
  deposit_type: z.string(),
});
export const depositsSchema = z.object({ deposits: z.array(heatDepositSchema), status: z.string() });
export type HeatDeposit = z.infer<typeof heatDepositSchema>;
