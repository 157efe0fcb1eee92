import { decodeAddress } from '../fuego/address.js';
import type { ChainBlock, ChainState } from './chain/chain-state.js';
import type { DaemonService } from './daemon/daemon-service.js';
import type { Availability, RpcHttpServer } from './http/rpc-http-server.js';
import type { RelayFailureMode } from './wallet/send-faults.js';
import type { FailAfterBroadcastMode, WalletJsonRpc } from './wallet/wallet-json-rpc.js';

export interface DevnetControlParts {
  readonly chain: ChainState;
  readonly daemon: DaemonService;
  readonly walletRpc: WalletJsonRpc;
  readonly daemonServer: RpcHttpServer;
  readonly walletServer: RpcHttpServer;
}

/**
 * What tests (and `fuego-pool devnet` flags) can do to the devnet beyond the RPC: mine (on the tip
 * or on any known block, which can switch the chain to that block's branch), reorg (and back), pause or break the daemon, give it peers or a longer chain its peers know, make the
 * wallet fail after broadcasting, refuse its sends, fail their relay, fail reads of a sent
 * transaction or forget it, hold its scan of the chain behind the daemon, change the difficulty.
 */
export class DevnetControl {
  readonly #parts: DevnetControlParts;

  constructor(parts: DevnetControlParts) {
    this.#parts = parts;
  }

  /** Address the devnet mines to by default: the wallet's first address. */
  get defaultAddress(): string {
    return this.#parts.walletRpc.wallet.addresses[0]!;
  }

  /** Mines `count` blocks (no PoW) paying `address` (default: the wallet's first address). */
  mineBlocks(count = 1, address: string = this.defaultAddress): ChainBlock[] {
    const keys = decodeAddress(address);
    if (keys.type !== 'standard') throw new RangeError('mining needs a standard address');
    const mined: ChainBlock[] = [];
    for (let i = 0; i < count; i++) mined.push(this.#parts.chain.mineBlock(address, keys));
    return mined;
  }

  /**
   * The rest of the network mines `count` blocks (no PoW) on block `blockId` (any block the daemon
   * knows: the tip, an older main-chain block, or an alternative block such as a stale block a pool
   * submitted), paying `address`. Each is placed as fuegod places a block from a peer: kept as an
   * alternative block while its branch is not heavier than the main chain, and once it is, the
   * daemon switches to the branch (the replaced blocks become alternative ones). Blocks off the tip
   * carry the replaced blocks' transactions, as fuegod needs to switch. Returns the mined blocks and
   * the blocks the switch took off the main chain (none if it did not happen).
   */
  mineOnBlock(
    blockId: string,
    count = 1,
    address: string = this.defaultAddress,
  ): { mined: ChainBlock[]; orphaned: ChainBlock[] } {
    const keys = decodeAddress(address);
    if (keys.type !== 'standard') throw new RangeError('mining needs a standard address');
    const mined: ChainBlock[] = [];
    const orphaned: ChainBlock[] = [];
    let parentId = blockId;
    for (let i = 0; i < count; i++) {
      const result = this.#parts.chain.mineBlockOn(parentId, address, keys);
      mined.push(result.block);
      orphaned.push(...result.orphaned);
      parentId = result.block.id;
    }
    return { mined, orphaned };
  }

  /**
   * Orphans the last `count` blocks (their `orphan_status` becomes true and their heights are freed),
   * then mines `replacementBlocks` new ones (default count + 1, so the new chain is longer, as in a
   * real reorg; 0 leaves the chain shorter). Returns the orphaned and the new blocks.
   */
  reorg(
    count: number,
    options: { replacementBlocks?: number; address?: string } = {},
  ): { orphaned: ChainBlock[]; mined: ChainBlock[] } {
    const orphaned = this.#parts.chain.orphanLast(count);
    const mined = this.mineBlocks(
      options.replacementBlocks ?? count + 1,
      options.address ?? this.defaultAddress,
    );
    return { orphaned, mined };
  }

  /**
   * Reorgs back to the branch the last `reorg` orphaned: it returns to the main chain at its own
   * heights (same hashes), the blocks that replaced it are orphaned, and `extraBlocks` are mined on
   * top (default: just enough for the restored branch to be longer than the one it replaces, as a
   * real reorg needs). Returns the restored, the newly orphaned and the mined blocks.
   */
  reorgBack(options: { extraBlocks?: number; address?: string } = {}): {
    restored: ChainBlock[];
    orphaned: ChainBlock[];
    mined: ChainBlock[];
  } {
    const { restored, orphaned } = this.#parts.chain.restoreLastOrphaned();
    const mined = this.mineBlocks(
      options.extraBlocks ?? Math.max(0, orphaned.length - restored.length + 1),
      options.address ?? this.defaultAddress,
    );
    return { restored, orphaned, mined };
  }

  /** Registers an alias for `address` (as an on-chain registration would); needs the extensions on. */
  registerAlias(alias: string, address: string): void {
    const extensions = this.#parts.daemon.extensions;
    if (!extensions) throw new RangeError('the alias endpoints are off (--no-extensions)');
    extensions.registerAlias(alias, address);
  }

  /** Core "initializing": getinfo reports BUSY, JSON-RPC methods answer -9 "Core is busy". */

  setDaemonBusy(busy: boolean): void {
    this.#parts.daemon.busy = busy;
  }

  /**
   * The peer connections the daemon's getinfo reports: none (the default) is an isolated fuegod,
   * whose chain the pool's unlocker does not trust (payments.unlockNeedsDaemonPeers).
   */
  setDaemonPeers(outgoing: number, incoming = 0): void {
    this.#parts.daemon.peers.set(outgoing, incoming);
  }

  /**
   * A syncing daemon: getinfo's last_known_block_index is `blocks` above its tip's (0: synced). The
   * wallet's getStatus knownBlockCount follows, and from 2 blocks on walletd's sends, createDeposit
   * and fusions answer 41 "Daemon is not synchronized".
   */
  setDaemonKnownBlocksAhead(blocks: number): void {
    this.#parts.daemon.peers.setKnownBlocksAhead(blocks);
  }

  /** Makes the daemon slow (every reply delayed), unreachable (not listening) or up again. */
  async setDaemonAvailability(availability: Availability): Promise<void> {
    await this.#parts.daemonServer.setAvailability(availability);
  }

  async setWalletAvailability(availability: Availability): Promise<void> {
    await this.#parts.walletServer.setAvailability(availability);
  }

  /** The next `count` sendTransaction calls broadcast, then fail with `mode` (see WalletJsonRpc). */
  failAfterBroadcast(count: number, mode: FailAfterBroadcastMode = 'error'): void {
    this.#parts.walletRpc.failAfterBroadcast(count, mode);
  }

  /**
   * The transaction of the next successful sendTransaction cannot be read: the next `count`
   * getTransaction calls for it fail (5 "Internal error occurred"), then it reads as usual.
   */
  failReadsOfNextSend(count: number): void {
    this.#parts.walletRpc.failReadsOfNextSend(count);
  }

  /** The next `count` valid blocks are refused with -7, like a daemon whose cn/upx2 disagrees. */
  refuseValidBlocks(count: number): void {
    this.#parts.daemon.refuseValidBlocks(count);
  }

  /**
   * The next `count` valid blocks are added to the chain but answered with -7, as fuegod answers a
   * block it already has (a duplicate submit).
   */
  refuseButAccept(count: number): void {
    this.#parts.daemon.refuseButAccept(count);
  }

  setDifficulty(difficulty: number | bigint): void {
    this.#parts.chain.setDifficulty(BigInt(difficulty));
  }

  /** The next `count` sendTransaction calls are refused with 6 "MixIn count is too big" (a young chain). */
  refuseSends(count: number): void {
    this.#parts.walletRpc.wallet.sendFaults.refuseNext(count);
  }

  /**
   * The next `count` sendTransaction / sendFusionTransaction calls build and record their
   * transaction, whose relay to the daemon then fails: the record stays with state 1 (FAILED) and
   * the call answers the daemon connection's error (see send-faults.ts).
   */
  failRelay(count: number, mode: RelayFailureMode = 'refused'): void {
    this.#parts.walletRpc.wallet.sendFaults.failRelayNext(count, mode);
  }

  /**
   * The wallet has no record of a transaction it sent, as a walletd reset or restored from a backup
   * older than the send: getTransaction answers 29 "Object not found" and the lists leave it out
   * until the wallet finds it again as walletd rebuilds its history: once its scan passes the
   * transaction's block (a scanned one sends the scan back to that block), or from its pool sync at
   * the tip while the daemon's pool has it. One the daemon dropped unmined stays unknown. The wallet
   * no longer holds it unconfirmed, so its inputs count in the balance again until then.
   */
  forgetWalletTransaction(transactionHash: string): void {
    this.#parts.walletRpc.wallet.forgetTransaction(transactionHash);
  }

  /**
   * The wallet's scan reaches its target at once, whatever `wallet.scanBlocksPerSecond` (not while
   * held): forgotten transactions in the blocks it passes, or in the daemon's pool, are found again.
   */
  finishWalletRescan(): void {
    this.#parts.walletRpc.wallet.finishRescan();
  }

  /**
   * walletd restarted on the same wallet file: a sent transaction stuck unconfirmed because the
   * daemon dropped it before any pool sync saw it is CANCELLED at the next pool sync.
   */
  restartWallet(): void {
    this.#parts.walletRpc.wallet.restart();
  }

  /**
   * The wallet's scan stops where it is (see wallet-scan.ts): blocks mined from now on are not in
   * its blockCount, balances or history, and its transactions in them stay unconfirmed to it; nor
   * does it take in pool changes (a transaction dropped from the pool stays unconfirmed to it).
   */
  holdWalletScan(): void {
    this.#parts.walletRpc.wallet.scan.hold();
  }

  /** A held wallet scan takes in `blocks` more of the daemon's chain (never past its tip). */
  advanceWalletScan(blocks: number): void {
    this.#parts.walletRpc.wallet.scan.advance(blocks);
  }

  /** The wallet's scan moves again: to its target at once, or at `wallet.scanBlocksPerSecond`. */
  releaseWalletScan(): void {
    this.#parts.walletRpc.wallet.scan.release();
  }

  /** The wallet's scan trails the daemon's tip by `blocks` from now on (`wallet.syncLagBlocks`). */
  setWalletSyncLag(blocks: number): void {
    this.#parts.walletRpc.wallet.scan.setLagBlocks(blocks);
  }

  /** Drops a transaction from the daemon's pool, as its expiry would; the wallet's record turns CANCELLED. */
  dropFromMempool(transactionHash: string): boolean {
    return this.#parts.chain.dropFromMempool(transactionHash);
  }
}
