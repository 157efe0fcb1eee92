import { FuegoPoolError } from '../errors.js';
import { encodeAddress } from '../fuego/address.js';
import { ATOMIC_UNITS_PER_COIN } from '../fuego/money.js';
import type { Logger } from '../log/logger.js';
import type { PowHasher } from '../pow/types.js';
import { ChainState } from './chain/chain-state.js';
import { DevnetControl } from './control.js';
import { DaemonService } from './daemon/daemon-service.js';
import { type DevnetConfig, parseDevnetConfig } from './devnet-config.js';
import { loadDevnetSnapshot, saveDevnetSnapshot } from './devnet-snapshot.js';
import { ExtensionEndpoints } from './extensions/extension-endpoints.js';
import { RpcHttpServer } from './http/rpc-http-server.js';
import { keyPairFromSeed } from './wallet/ed25519-keys.js';
import { WalletJsonRpc } from './wallet/wallet-json-rpc.js';
import { SPENDABLE_CONFIRMATIONS } from './wallet/wallet-outputs.js';
import { walletRpcRefusal } from './wallet/wallet-rpc-auth.js';
import { WalletService } from './wallet/wallet-service.js';

export const DEVNET_HOST = '127.0.0.1';

/** A devnet port could not be bound; the message names it. */
export class DevnetListenError extends FuegoPoolError<'DEVNET_PORT_IN_USE' | 'DEVNET_LISTEN_FAILED'> {}

async function listenOn(server: RpcHttpServer, name: 'daemon' | 'wallet', port: number): Promise<void> {
  try {
    await server.start();
  } catch (error) {
    const where = `${DEVNET_HOST}:${port}`;
    const errno = (error as NodeJS.ErrnoException | null)?.code;
    if (errno === 'EADDRINUSE') {
      throw new DevnetListenError(
        'DEVNET_PORT_IN_USE',
        `${name} port ${where} is already in use`,
        { port },
        { cause: error },
      );
    }
    const detail = error instanceof Error ? error.message : String(error);
    throw new DevnetListenError(
      'DEVNET_LISTEN_FAILED',
      `${name} port ${where}: ${detail}`,
      { port, errno },
      {
        cause: error,
      },
    );
  }
}

export interface DevnetModules {
  /** cn/upx2 implementation used to check submitted blocks (one hash per submitblock). */
  readonly hasher: PowHasher;
  /** Wall clock in ms; tests may inject one. */
  readonly now?: () => number;
  readonly logger?: Logger;
}

/**
 * Composition root of the devnet: one chain, the simulated fuegod and walletd on 127.0.0.1, and the
 * control API. `Devnet.start` premines the wallet's starting coins (block 1) and mines enough blocks
 * on top for them to be spendable (the coinbase maturity, and at least the 10 confirmations every
 * output needs), so payouts can be tested at once.
 */
export class Devnet {
  readonly config: DevnetConfig;
  readonly chain: ChainState;
  readonly daemon: DaemonService;
  readonly wallet: WalletService;
  readonly walletRpc: WalletJsonRpc;
  readonly control: DevnetControl;
  readonly #daemonServer: RpcHttpServer;
  readonly #walletServer: RpcHttpServer;
  readonly #logger: Logger | undefined;
  #networkTimer: NodeJS.Timeout | undefined;
  #busyTimer: NodeJS.Timeout | undefined;

  private constructor(config: DevnetConfig, modules: DevnetModules) {
    this.config = config;
    this.#logger = modules.logger;
    this.chain = new ChainState({
      difficulty: BigInt(config.daemon.difficulty),
      now: modules.now ?? Date.now,
      hasher: modules.hasher,
      premineAtomic: BigInt(config.wallet.prefundCoins) * ATOMIC_UNITS_PER_COIN,
      coinbaseMaturityBlocks: config.daemon.coinbaseMaturityBlocks,
    });
    const extensions = config.daemon.extensions
      ? new ExtensionEndpoints({ ...config.extensions })
      : undefined;
    this.daemon = new DaemonService({ chain: this.chain, extensions, feeAddress: config.daemon.feeAddress });
    this.wallet = new WalletService({
      chain: this.chain,
      seed: config.wallet.seed,
      addressCount: config.wallet.addressCount,
      requireDecoys: config.wallet.requireDecoys,
      daemonReachable: () => this.#daemonServer.availability.kind !== 'unreachable',
      daemonBlocksBehind: () => this.daemon.peers.knownBlocksAhead,
      syncLagBlocks: config.wallet.syncLagBlocks,
      scanBlocksPerSecond: config.wallet.scanBlocksPerSecond,
      now: modules.now ?? Date.now,
    });
    this.walletRpc = new WalletJsonRpc(this.wallet);
    this.#daemonServer = new RpcHttpServer({
      host: DEVNET_HOST,
      port: config.daemon.port,
      maxBodyBytes: config.daemon.maxBodyBytes,
      handler: (request) => this.daemon.handle(request),
    });
    this.#walletServer = new RpcHttpServer({
      host: DEVNET_HOST,
      port: config.wallet.port,
      maxBodyBytes: config.wallet.maxBodyBytes,
      handler: (request) =>
        walletRpcRefusal({ user: config.wallet.rpcUser, password: config.wallet.rpcPassword }, request) ??
        this.walletRpc.handle(request),
    });
    this.control = new DevnetControl({
      chain: this.chain,
      daemon: this.daemon,
      walletRpc: this.walletRpc,
      daemonServer: this.#daemonServer,
      walletServer: this.#walletServer,
    });
  }

  /** Builds the devnet from a (raw or parsed) config and starts both servers. */
  static async start(configInput: unknown, modules: DevnetModules): Promise<Devnet> {
    const devnet = new Devnet(parseDevnetConfig(configInput), modules);
    await devnet.#start();
    return devnet;
  }

  get daemonUrl(): string {
    return `http://${DEVNET_HOST}:${this.#daemonServer.port}`;
  }

  get walletUrl(): string {
    return `http://${DEVNET_HOST}:${this.#walletServer.port}`;
  }

  get walletAddress(): string {
    return this.wallet.addresses[0]!;
  }

  async stop(): Promise<void> {
    if (this.#networkTimer) clearInterval(this.#networkTimer);
    if (this.#busyTimer) clearTimeout(this.#busyTimer);
    await Promise.all([this.#daemonServer.stop(), this.#walletServer.stop()]);
    if (this.config.dataDir) await saveDevnetSnapshot(this.config.dataDir, this.chain);
  }

  async #start(): Promise<void> {
    this.daemon.busy = true;
    const restored = this.config.dataDir ? await loadDevnetSnapshot(this.config.dataDir, this.chain) : 0;
    if (restored === 0) {
      // Block 1 is the premine; this many more blocks make it spendable.
      const maturity = Math.max(this.config.daemon.coinbaseMaturityBlocks, SPENDABLE_CONFIRMATIONS);
      this.control.mineBlocks(1 + maturity);
    }
    // Like a walletd whose container was saved synced: a scan rate makes it trail only from here.
    this.wallet.scan.catchUp();
    await listenOn(this.#daemonServer, 'daemon', this.config.daemon.port);
    try {
      await listenOn(this.#walletServer, 'wallet', this.config.wallet.port);
    } catch (error) {
      // Or the daemon server would keep the process alive after the failed start.
      await this.#daemonServer.stop();
      throw error;
    }
    const busyMs = this.config.daemon.startBusyMs;
    if (busyMs > 0) {
      this.#busyTimer = setTimeout(() => {
        this.daemon.busy = false;
      }, busyMs);
    } else {
      this.daemon.busy = false;
    }
    if (this.config.daemon.blockTimeSeconds > 0) {
      const network = keyPairFromSeed(new TextEncoder().encode(`${this.config.wallet.seed}/network-miner`));
      const address = encodeAddress({ spendPublicKey: network.publicKey, viewPublicKey: network.publicKey });
      this.#networkTimer = setInterval(() => {
        if (this.daemon.busy) return;
        const block = this.control.mineBlocks(1, address)[0]!;
        this.#logger?.debug({ height: block.height, id: block.id }, 'devnet network mined a block');
      }, this.config.daemon.blockTimeSeconds * 1000);
    }
    this.#logger?.info(
      { daemon: this.daemonUrl, wallet: this.walletUrl, height: this.chain.height },
      'devnet started',
    );
  }
}
