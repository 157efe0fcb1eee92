import type { CliCommand } from '../command.js';

/**
 * Every command of the `fuego-pool` binary. Commands are loaded lazily so that
 * `fuego-pool hash` does not pay for loading the devnet or Redis clients.
 */
export interface CommandEntry {
  readonly path: readonly string[];
  readonly summary: string;
  load(): Promise<CliCommand>;
}

export const commands: readonly CommandEntry[] = [
  {
    path: ['block', 'inspect'],
    summary:
      'decode a block blob (hex, or one the pool kept: --config FILE --block HASH) and print its fields, block id, PoW hash and target check as JSON',
    load: async () => (await import('./block-inspect.js')).blockInspectCommand,
  },
  {
    path: ['block', 'settle'],
    summary:
      'settle a credited block a deep reorg orphaned (fuego-pool report lists them): --absorb, --clawback (never below zero), or --credit-back once a later reorg restored a clawed-back one; --dry-run',
    load: async () => (await import('./block-settle.js')).blockSettleCommand,
  },
  {
    path: ['balance'],
    summary:
      "one miner's account (--config FILE): payable, in payout, paid, its latest balance changes and payments",
    load: async () => (await import('./balance.js')).balanceCommand,
  },
  {
    path: ['balance', 'adjust'],
    summary:
      "credit or debit one miner's payable balance by hand (--credit XFG | --debit XFG, --note TEXT), recorded in its history; --dry-run",
    load: async () => (await import('./balance.js')).balanceAdjustCommand,
  },
  {
    path: ['address', 'check'],
    summary: 'validate a Fuego address and print its keys and payment id as JSON',
    load: async () => (await import('./address-check.js')).addressCheckCommand,
  },
  {
    path: ['hash'],
    summary: 'print the cn/upx2 hash of each hex argument (or of each stdin line)',
    load: async () => (await import('./hash.js')).hashCommand,
  },
  {
    path: ['start'],
    summary: 'run the pool (stratum, templates, share pipeline) from a config file',
    load: async () => (await import('./start.js')).startCommand,
  },
  {
    path: ['demo'],
    summary: 'run the pool on the built-in devnet with a private Redis (what `npm run devnet` runs)',
    load: async () => (await import('./demo.js')).demoCommand,
  },
  {
    path: ['payout'],
    summary:
      'run one payout pass (recovery, then batches) — for cron; --dry-run; --now asks the running leader when its control socket is up',
    load: async () => (await import('./payout-dispatch.js')).payoutDispatchCommand,
  },
  {
    path: ['payout', 'resolve'],
    summary:
      'settle a tagged wallet transaction Redis has no batch for (or --all): --paid debits its recipients, --dismiss changes nothing',
    load: async () => (await import('./payout-resolve.js')).payoutResolveCommand,
  },
  {
    path: ['wallet', 'optimize'],
    summary:
      "join the pool wallet's small outputs with fusion transactions now (through the running leader when its control socket is up)",
    load: async () => (await import('./wallet-optimize.js')).walletOptimizeCommand,
  },
  {
    path: ['report'],
    summary:
      'solvency and payout report: balances vs wallet, durability, unknown payments, held miners, open and failed batches',
    load: async () => (await import('./report.js')).reportCommand,
  },
  {
    path: ['status'],
    summary:
      'summary of the running pool process, over its control socket (exit 1 when templates are unhealthy or it still waits for its first one)',
    load: async () => (await import('./status.js')).statusCommand,
  },
  {
    path: ['miners'],
    summary: 'top miners of the running pool by hashrate (--limit N)',
    load: async () => (await import('./miners.js')).minersCommand,
  },
  {
    path: ['ban'],
    summary: "ban an IP from the running pool's stratum ports (--seconds N, --reason TEXT)",
    load: async () => (await import('./ban.js')).banCommand,
  },
  {
    path: ['unban'],
    summary: 'lift the ban of an IP on the running pool',
    load: async () => (await import('./ban.js')).unbanCommand,
  },
  {
    path: ['bans'],
    summary: 'list the active bans of the running pool',
    load: async () => (await import('./ban.js')).bansCommand,
  },
  {
    path: ['devnet'],

    summary: 'run a simulated fuegod + walletd on 127.0.0.1 for demos and tests',
    load: async () => (await import('./devnet.js')).devnetCommand,
  },
];
