import { z } from 'zod';
import { FuegoPoolError } from '../errors.js';
import { FUEGO_COINBASE_MATURITY_BLOCKS } from '../fuego/coinbase-maturity.js';

const port = z.number().int().min(0).max(65535);
const atomic = z.number().int().min(0);

const extensionsSchema = z.strictObject({
  /** What `/getfeeaddress` reports. */
  feeAddress: z.string().default(''),
  aliases: z.array(z.strictObject({ alias: z.string().min(1), address: z.string() })).default([]),
  deposits: z
    .array(
      z.strictObject({
        id: z.number().int().min(0),
        amount: atomic,
        term: z.number().int().min(0),
        unlock_height: z.number().int().min(0),
        creating_tx_hash: z.string().regex(/^[0-9a-f]{64}$/),
        deposit_type: z.string().default('HEAT'),
      }),
    )
    .default([]),
  feePool: z
    .strictObject({
      fee_pool_balance: atomic.default(0),
      current_epoch_swap_fees: atomic.default(0),
      total_cd_locked: atomic.default(0),
      current_epoch_number: z.number().int().min(0).default(0),
    })
    .prefault({}),
  epochs: z
    .array(
      z.strictObject({ epoch_number: z.number().int().min(0), swap_fees: atomic, total_cd_locked: atomic }),
    )
    .default([]),
  treasuryBalance: atomic.default(0),
});

/** The devnet's configuration: every key optional, unknown keys rejected (they are usually typos). */
export const devnetConfigSchema = z.strictObject({
  daemon: z
    .strictObject({
      port: port.default(18180),
      /** Network difficulty of every block (the devnet does not retarget); settable at run time. */
      difficulty: z.number().int().min(1).default(1000),
      /**
       * Seconds between blocks mined by the simulated rest of the network (to a non-wallet address);
       * 0 = only blocks that are submitted or mined through the control API.
       */
      blockTimeSeconds: z.number().min(0).default(0),
      /** Serve the fee pool, alias and HEAT endpoints (absent from the real 1.9.3 daemon). */
      extensions: z.boolean().default(true),
      /** `--fee-address` of the daemon: reported by /feeaddress and getinfo. */
      feeAddress: z.string().default(''),
      /**
       * Blocks before a coinbase output can be spent (its unlock time is height + this), and before
       * any output is offered as a decoy. Fuego: 60. A demo may shorten it; the pool's
       * `payments.confirmDepth` should then be at least as long, or it credits rewards the wallet
       * cannot spend yet. Regular outputs still need 10 confirmations.
       */
      coinbaseMaturityBlocks: z.number().int().min(1).max(10_000).default(FUEGO_COINBASE_MATURITY_BLOCKS),
      /** getinfo says BUSY (and other calls refuse) for this long after start. */
      startBusyMs: z.number().int().min(0).default(0),
      maxBodyBytes: z
        .number()
        .int()
        .min(1024)
        .default(1024 * 1024),
    })
    .prefault({}),
  wallet: z
    .strictObject({
      port: port.default(8070),
      /** Seed of the deterministic view and spend keys. */
      seed: z.string().min(1).default('fuego-devnet'),
      addressCount: z.number().int().min(1).max(100).default(1),
      /** Coins the premine (block 1) pays to the wallet's first address; unlocked at start. */
      prefundCoins: z.number().int().min(0).default(10_000),
      /**
       * Refuse a send, as walletd does on a young chain ("MixIn count is too big"), when the chain
       * cannot supply two decoys of the same amount for every input. Off by default: the premine
       * is one output of a unique amount, so with this on nothing could be paid from it, and most
       * tests pay from the premine at once.
       */
      requireDecoys: z.boolean().default(false),
      /**
       * The wallet's scan trails the daemon's tip by this many blocks, as a real walletd does after a
       * restart or a burst of blocks: getStatus blockCount, balances and history are those of the
       * scanned blocks; transactions in the others are unconfirmed to it. 0: it sees every block at once.
       */
      syncLagBlocks: z.number().int().min(0).max(100_000).default(0),
      /**
       * Blocks the wallet scans per second at most (a burst of blocks leaves it behind for a while);
       * 0: no limit. It starts synced either way.
       */
      scanBlocksPerSecond: z.number().min(0).max(1_000_000).default(0),
      /**
       * walletd's `--rpc-user` / `--rpc-password`: with either set, a request without them as
       * HTTP Basic credentials gets walletd's 401 and nothing runs. Both empty (default): none asked.
       */
      rpcUser: z.string().default(''),
      rpcPassword: z.string().default(''),
      maxBodyBytes: z
        .number()
        .int()
        .min(1024)
        .default(1024 * 1024),
    })
    .prefault({}),
  extensions: extensionsSchema.prefault({}),
  /** When set, chain and wallet state are saved here on stop and loaded on start. */
  dataDir: z.string().min(1).optional(),
});

export type DevnetConfig = z.infer<typeof devnetConfigSchema>;
export type DevnetConfigInput = z.input<typeof devnetConfigSchema>;

export class DevnetConfigError extends FuegoPoolError<'INVALID_DEVNET_CONFIG'> {}

/** Validates, applies defaults and freezes; the error names the first bad key (`daemon.port: ...`). */
export function parseDevnetConfig(input: unknown): DevnetConfig {
  const result = devnetConfigSchema.safeParse(input ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys] : issue.path;
    const key = keys.map(String).join('.') || '(root)';
    throw new DevnetConfigError('INVALID_DEVNET_CONFIG', `devnet config ${key}: ${issue.message}`, { key });
  }
  return deepFreeze(result.data);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
