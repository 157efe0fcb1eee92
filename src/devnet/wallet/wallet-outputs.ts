import { bytesToHex } from '../../fuego/hex.js';
import type { Transaction } from '../../fuego/transaction.js';
import { parseSent, type SentTransactions } from './sent-transactions.js';
import { keyImageOf } from './transaction-builder.js';
import type { WalletChain } from './wallet-chain-view.js';
import type { WalletContainer } from './wallet-container.js';

/** Outputs are spendable this many blocks after the one that created them (coinbase: its unlock time too). */
export const SPENDABLE_CONFIRMATIONS = 10;

export interface OwnedOutput {
  readonly keyHex: string;
  readonly amount: bigint;
  readonly address: string;
  /** undefined while the creating transaction is in the mempool. */
  readonly height: number | undefined;
  readonly unlockTime: bigint;
}

export interface WalletOutputsModules {
  /** The chain as the wallet has scanned it. */
  readonly chain: WalletChain;
  readonly container: WalletContainer;
  readonly sent: SentTransactions;
}

/**
 * The wallet's outputs as the chain it has scanned shows them now (so reorgs need no bookkeeping):
 * owned, spent, spendable at its scan height; those of transactions in blocks it has not scanned
 * are unconfirmed (locked), those of coinbases there unknown. Outputs are found through the chain's record of output owners (see output-keys.ts),
 * not by stealth-address scanning.
 */
export class WalletOutputs {
  readonly #chain: WalletChain;
  readonly #container: WalletContainer;
  readonly #sent: SentTransactions;

  constructor(modules: WalletOutputsModules) {
    this.#chain = modules.chain;
    this.#container = modules.container;
    this.#sent = modules.sent;
  }

  /** The unspent, spendable outputs of `owners`, oldest first (what walletd calls unlocked). */
  unlocked(owners: ReadonlySet<string>): OwnedOutput[] {
    const spent = this.#spentKeys();
    return this.#owned().filter((o) => owners.has(o.address) && !spent.has(o.keyHex) && this.#isSpendable(o));
  }

  /** What the unspent outputs of `owners` hold: spendable now, and not yet. */
  balance(owners: ReadonlySet<string>): { available: bigint; locked: bigint } {
    const spent = this.#spentKeys();
    let available = 0n;
    let locked = 0n;
    for (const output of this.#owned()) {
      if (!owners.has(output.address) || spent.has(output.keyHex)) continue;
      if (this.#isSpendable(output)) available += output.amount;
      else locked += output.amount;
    }
    return { available, locked };
  }

  /** Every output paying one of this wallet's addresses, in a scanned block or pending to the wallet. */
  #owned(): OwnedOutput[] {
    const mine = new Set(this.#container.addresses);
    const found: OwnedOutput[] = [];
    const scan = (tx: Transaction, height: number | undefined) => {
      for (const output of tx.outputs) {
        if (output.kind !== 'key') continue;
        const keyHex = bytesToHex(output.key);
        const address = this.#chain.outputOwners.ownerOf(keyHex);
        if (address !== undefined && mine.has(address)) {
          found.push({ keyHex, amount: output.amount, address, height, unlockTime: tx.unlockTime });
        }
      }
    };
    for (const block of this.#chain.mainChain()) {
      scan(block.block.baseTransaction, block.height);
      for (const tx of block.transactions) scan(tx.tx, block.height);
    }
    for (const tx of this.#chain.mempool()) scan(tx.tx, undefined);
    return found;
  }

  /**
   * Output keys already consumed: an output is spent when its (deterministic) key image appears in a
   * main-chain or mempool transaction, or in one of the wallet's delayed (not yet sent) transactions.
   */
  #spentKeys(): Set<string> {
    const images = new Set<string>();
    const collect = (tx: Transaction) => {
      for (const input of tx.inputs) if (input.kind === 'key') images.add(bytesToHex(input.keyImage));
    };
    for (const block of this.#chain.mainChain()) for (const tx of block.transactions) collect(tx.tx);
    for (const tx of this.#chain.mempool()) collect(tx.tx);
    for (const sent of this.#sent.inPhase('delayed')) {
      const parsed = parseSent(sent);
      if (parsed) collect(parsed);
    }
    const spent = new Set<string>();
    for (const output of this.#owned())
      if (images.has(bytesToHex(keyImageOf(output.keyHex)))) spent.add(output.keyHex);
    return spent;
  }

  #isSpendable(output: OwnedOutput): boolean {
    if (output.height === undefined) return false;
    const blockCount = this.#chain.height;
    return blockCount - output.height >= SPENDABLE_CONFIRMATIONS && output.unlockTime <= BigInt(blockCount);
  }
}
