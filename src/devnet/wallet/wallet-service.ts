import type { ChainState } from '../chain/chain-state.js';
import { decodeWalletAddress } from './address-checks.js';
import type { SendFaults } from './send-faults.js';
import { SentTransactions } from './sent-transactions.js';
import { WalletChainView } from './wallet-chain-view.js';
import { WalletContainer } from './wallet-container.js';
import { WalletDeposits } from './wallet-deposits.js';
import { WalletRpcError } from './wallet-errors.js';
import { ForgottenTransactions } from './wallet-forgotten.js';
import { WalletFusion } from './wallet-fusion.js';
import { WalletOutputs } from './wallet-outputs.js';
import { WalletParams } from './wallet-params.js';
import { WalletPool } from './wallet-pool.js';
import { WalletRecords } from './wallet-records.js';
import { WalletScan } from './wallet-scan.js';
import { WalletSender } from './wallet-sender.js';
import { WalletTransfers } from './wallet-transfers.js';

export interface WalletServiceOptions {
  readonly chain: ChainState;
  /** Seed for the view key and the first addresses (deterministic devnet wallets). */
  readonly seed: string;
  readonly addressCount: number;
  /** Refuse sends the chain cannot supply two decoys per input for (see decoy-supply.ts). */
  readonly requireDecoys?: boolean;
  /** Whether the daemon answers (default: always); sends need it, reads do not. */
  readonly daemonReachable?: () => boolean;
  /** Blocks the daemon's peers know beyond its tip (default: none, a synchronized daemon). */
  readonly daemonBlocksBehind?: () => number;
  /** The wallet's scan trails the daemon's tip by this many blocks (default 0; see WalletScan). */
  readonly syncLagBlocks?: number;
  /** Blocks the wallet scans per second at most (default 0: no limit). */
  readonly scanBlocksPerSecond?: number;
  readonly now?: () => number;
}

/**
 * The simulated walletd: one container (one view key, N spend key pairs) whose balances and history
 * are derived from the devnet chain on every call, so reorgs are reflected without bookkeeping; from
 * the blocks it has scanned, which may trail the daemon (wallet-scan.ts, wallet-chain-view.ts).
 * Each method takes walletd's raw `params` and returns its `result`; this class only wires the
 * parts and hands each method to the one that answers it, as walletd's PaymentGate does.
 */
export class WalletService {
  readonly #view: WalletChainView;
  readonly #pool: WalletPool;
  readonly #container: WalletContainer;
  readonly #sent = new SentTransactions();
  readonly #outputs: WalletOutputs;
  readonly #records: WalletRecords;
  readonly #forgotten: ForgottenTransactions;
  readonly #transfers: WalletTransfers;
  readonly #fusion: WalletFusion;
  readonly #deposits: WalletDeposits;
  /** Refusals and relay failures tests arm on the next sends. */
  readonly sendFaults: SendFaults;
  /** How far the wallet has scanned the daemon's chain; tests hold and step it. */
  readonly scan: WalletScan;

  constructor(options: WalletServiceOptions) {
    const chain = options.chain;
    const daemonBlocksBehind = options.daemonBlocksBehind ?? (() => 0);
    const daemonReachable = options.daemonReachable ?? (() => true);
    const scan = new WalletScan(chain, {
      lagBlocks: options.syncLagBlocks ?? 0,
      blocksPerSecond: options.scanBlocksPerSecond ?? 0,
      now: options.now ?? Date.now,
    });
    const pool = new WalletPool({ chain, scan, daemonReachable, daemonBlocksBehind });
    this.#pool = pool;
    const view = new WalletChainView({ chain, scan, pool, daemonBlocksBehind });
    const container = new WalletContainer(options.seed, options.addressCount);
    const sent = this.#sent;
    const outputs = new WalletOutputs({ chain: view, container, sent });
    const sender = new WalletSender(
      {
        seed: options.seed,
        requireDecoys: options.requireDecoys ?? false,
        daemonReachable,
        daemonBlocksBehind,
      },
      { chain, container, outputs, sent, pool },
    );
    this.scan = scan;
    this.#view = view;
    this.#container = container;
    this.#outputs = outputs;
    this.#forgotten = new ForgottenTransactions({ view, scan, pool });
    this.#records = new WalletRecords({ chain: view, container, sent, forgotten: this.#forgotten });
    this.#transfers = new WalletTransfers({ chain, container, sent, sender });
    this.#fusion = new WalletFusion({ chain: view, container, outputs, sender });
    this.#deposits = new WalletDeposits({ chain: view, container, sender });
    this.sendFaults = sender.sendFaults;
  }

  /** Standard addresses of the container, in creation order. */
  get addresses(): string[] {
    return this.#container.addresses;
  }

  /** Decoded keys of one of this wallet's addresses (for the devnet's own miner). */
  keysOf(address: string): { spendPublicKey: string; viewPublicKey: string } {
    return this.#container.keysOf(address);
  }

  /**
   * Hashes of every transaction this wallet built, oldest first, whatever became of them (for
   * tests: walletd lists failed and cancelled ones nowhere, getTransaction finds them by hash).
   */
  builtTransactionHashes(): string[] {
    return this.#sent.hashes();
  }

  /** The wallet loses its record of `hash` until its rescan finds it again (wallet-forgotten.ts). */
  forgetTransaction(hash: string): void {
    this.#forgotten.forget(hash);
  }

  /** walletd restarted on the same wallet file: see WalletPool.reload. */
  restart(): void {
    this.#pool.reload();
  }

  /**
   * The rescan reaches its target at once, whatever the scan rate (not while held): forgotten
   * transactions in the blocks it passes, or in the daemon's pool when it is at the tip, are found again.
   */
  finishRescan(): void {
    this.scan.catchUp();
  }

  // ---- status and sync -----------------------------------------------------------------------

  /** blockCount and lastBlockHash are the wallet's scan; knownBlockCount its daemon's view of the network. */
  getStatus(): unknown {
    const view = this.#view;
    return {
      addressCount: this.#container.addressCount,
      blockCount: view.height,
      depositCount: this.#deposits.count(),
      knownBlockCount: view.knownBlockCount,
      lastBlockHash: view.tip.id,
      peerCount: 0,
      transactionCount: this.#records.count(),
    };
  }

  getBlockHashes(params: unknown): unknown {
    const p = new WalletParams(params);
    const first = p.uint('firstBlockIndex');
    const count = p.uint('blockCount');
    const hashes = this.#view
      .mainChain()
      .slice(first, first + count)
      .map((b) => b.id);
    return { blockHashes: hashes };
  }

  /** The balance of `address`, or of the whole container: its outputs, then its deposits. */
  getBalance(params: unknown): unknown {
    const address = new WalletParams(params).optionalString('address');
    let owners: Set<string>;
    if (address === undefined) {
      owners = new Set(this.addresses);
    } else {
      decodeWalletAddress(address);
      if (!this.#container.has(address)) throw new WalletRpcError('WALLET_NOT_FOUND');
      owners = new Set([address]);
    }
    const { available, locked } = this.#outputs.balance(owners);
    const { lockedDeposits, unlockedDeposits } = this.#deposits.balance(owners);
    return {
      availableBalance: available,
      lockedAmount: locked,
      lockedDepositBalance: lockedDeposits,
      unlockedDepositBalance: unlockedDeposits,
    };
  }

  /** save / reset / exportWallet: nothing to do for an in-memory container. */
  noop(): unknown {
    return {};
  }

  // ---- addresses and keys (wallet-container.ts) ----------------------------------------------

  getAddresses(): unknown {
    return this.#container.getAddresses();
  }

  createAddress(params: unknown): unknown {
    return this.#container.createAddress(params);
  }

  createAddressList(params: unknown): unknown {
    return this.#container.createAddressList(params);
  }

  deleteAddress(params: unknown): unknown {
    return this.#container.deleteAddress(params);
  }

  getSpendKeys(params: unknown): unknown {
    return this.#container.getSpendKeys(params);
  }

  getViewKey(): unknown {
    return this.#container.getViewKey();
  }

  createIntegrated(params: unknown): unknown {
    return this.#container.createIntegrated(params);
  }

  splitIntegrated(params: unknown): unknown {
    return this.#container.splitIntegrated(params);
  }

  // ---- transaction history (wallet-records.ts) -----------------------------------------------

  getTransactionHashes(params: unknown): unknown {
    return this.#records.getTransactionHashes(params);
  }

  getTransactions(params: unknown): unknown {
    return this.#records.getTransactions(params);
  }

  getTransaction(params: unknown): unknown {
    return this.#records.getTransaction(params);
  }

  getUnconfirmedTransactionHashes(params: unknown): unknown {
    return this.#records.getUnconfirmedTransactionHashes(params);
  }

  // ---- transfers (wallet-transfers.ts) and fusion (wallet-fusion.ts) -------------------------

  sendTransaction(params: unknown): { transactionHash: string; transactionSecretKey: string } {
    return this.#transfers.sendTransaction(params);
  }

  createDelayedTransaction(params: unknown): unknown {
    return this.#transfers.createDelayedTransaction(params);
  }

  getDelayedTransactionHashes(): unknown {
    return this.#transfers.getDelayedTransactionHashes();
  }

  sendDelayedTransaction(params: unknown): unknown {
    return this.#transfers.sendDelayedTransaction(params);
  }

  deleteDelayedTransaction(params: unknown): unknown {
    return this.#transfers.deleteDelayedTransaction(params);
  }

  estimateFusion(params: unknown): unknown {
    return this.#fusion.estimateFusion(params);
  }

  sendFusionTransaction(params: unknown): unknown {
    return this.#fusion.sendFusionTransaction(params);
  }

  // ---- deposits (wallet-deposits.ts) ---------------------------------------------------------

  createDeposit(params: unknown): unknown {
    return this.#deposits.createDeposit(params);
  }

  sendDeposit(params: unknown): unknown {
    return this.#deposits.sendDeposit(params);
  }

  withdrawDeposit(params: unknown): unknown {
    return this.#deposits.withdrawDeposit(params);
  }

  getDeposit(params: unknown): unknown {
    return this.#deposits.getDeposit(params);
  }
}
