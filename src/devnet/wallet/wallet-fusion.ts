import { decodeStandardAddress } from './address-checks.js';
import {
  estimateFusion,
  FUSION_TX_MAX_SIZE_BYTES,
  FUSION_TX_MIN_INPUT_COUNT,
  maxFusionInputCount,
  pickFusionInputs,
} from './fusion-rules.js';
import { DUST_THRESHOLD_ATOMIC } from './input-selection.js';
import type { TransferRecord } from './sent-transactions.js';
import type { BuiltTransaction } from './transaction-builder.js';
import type { WalletChain } from './wallet-chain-view.js';
import type { WalletContainer } from './wallet-container.js';
import { WalletRpcError } from './wallet-errors.js';
import type { OwnedOutput, WalletOutputs } from './wallet-outputs.js';
import { WalletParams } from './wallet-params.js';
import { amountsByAddress, type WalletSender } from './wallet-sender.js';

/** A fusion transaction has no decoys: walletd passes mixin 0 whatever `anonymity` says. */
const FUSION_MIXIN = 0;

export interface WalletFusionModules {
  /** The chain as the wallet has scanned it. */
  readonly chain: WalletChain;
  readonly container: WalletContainer;
  readonly outputs: WalletOutputs;
  readonly sender: WalletSender;
}

/** walletd's wallet optimisation: estimateFusion and sendFusionTransaction (rules in fusion-rules.ts). */
export class WalletFusion {
  readonly #modules: WalletFusionModules;

  constructor(modules: WalletFusionModules) {
    this.#modules = modules;
  }

  /**
   * estimateFusion: how many of the wallet's unlocked outputs (of `addresses`, default all) a fusion
   * under `threshold` could take, and how many unlocked outputs there are.
   */
  estimateFusion(params: unknown): unknown {
    const p = new WalletParams(params);
    const threshold = BigInt(p.uint('threshold'));
    const requested = p.optionalStringArray('addresses') ?? [];
    this.#modules.sender.requireDaemonSynced();
    const sources = this.#fusionSources(requested);
    return estimateFusion(this.#modules.outputs.unlocked(sources), threshold, this.#topHeight());
  }

  /**
   * sendFusionTransaction (WalletGreen::createFusionTransaction): joins 12 or more ready outputs of
   * one power of ten below `threshold` into the digits of their sum, paid to `destinationAddress`
   * (default: the only address, or the only source), with no fee and no decoys. A real transaction:
   * mempool, then a block, with a record of amount 0 and fee 0.
   */
  sendFusionTransaction(params: unknown): unknown {
    const { container, outputs, sender } = this.#modules;
    const p = new WalletParams(params);
    const threshold = BigInt(p.uint('threshold'));
    p.uint('anonymity');
    const requested = p.optionalStringArray('addresses') ?? [];
    const destinationAddress = p.optionalString('destinationAddress') ?? '';
    sender.requireDaemonSynced();
    for (const address of requested) decodeStandardAddress(address);
    if (destinationAddress !== '') decodeStandardAddress(destinationAddress);
    const sources = this.#fusionSources(requested);
    const destination = container.changeAddressFor(destinationAddress, requested, {
      required: 'DESTINATION_ADDRESS_REQUIRED',
      notFound: 'DESTINATION_ADDRESS_NOT_FOUND',
    });
    if (threshold <= DUST_THRESHOLD_ATOMIC) throw new WalletRpcError('THRESHOLD_TOO_LOW');

    const inputs = pickFusionInputs(
      outputs.unlocked(sources),
      threshold,
      this.#topHeight(),
      maxFusionInputCount(FUSION_MIXIN),
    );
    if (inputs.length < FUSION_TX_MIN_INPUT_COUNT) throw new WalletRpcError('NOTHING_TO_OPTIMIZE');
    const { built, sumAtomic } = this.#buildWithinSizeLimit(inputs, destination);
    // walletd's record of a fusion: what each source address put in, what came back.
    const transfers: TransferRecord[] = [];
    for (const [address, amount] of amountsByAddress(inputs))
      transfers.push({ type: 0, address, amount: -amount, message: '' });
    transfers.push({ type: 0, address: destination, amount: sumAtomic, message: '' });
    const sent = sender.commit(built, { transfers, netAtomic: 0n, feeAtomic: 0n }, 'relay', true);
    return { transactionHash: sent.hash };
  }

  /**
   * Builds the fusion of `inputs`, dropping them from the end (largest first) until it fits in
   * 240000 bytes; `inputs` is left holding what the transaction spends.
   */
  #buildWithinSizeLimit(
    inputs: OwnedOutput[],
    destination: string,
  ): { built: BuiltTransaction; sumAtomic: bigint } {
    const { container, sender } = this.#modules;
    for (;;) {
      const sumAtomic = inputs.reduce((sum, input) => sum + input.amount, 0n);
      const built = sender.build({
        inputs,
        extraInputs: [],
        mixin: FUSION_MIXIN,
        outputs: [
          { address: destination, keys: container.keysOf(destination), amount: sumAtomic, kind: 'key' },
        ],
        change: { address: destination, amountAtomic: 0n },
        unlockTime: 0n,
        paymentId: '',
        extra: new Uint8Array(0),
        version: 1,
      });
      if (built.bytes.length <= FUSION_TX_MAX_SIZE_BYTES) return { built, sumAtomic };
      inputs.pop();
      if (inputs.length < FUSION_TX_MIN_INPUT_COUNT) throw new WalletRpcError('MINIMUM_INPUT_COUNT');
    }
  }

  /** The source addresses of a fusion (each must be the wallet's), or every address when none given. */
  #fusionSources(requested: readonly string[]): Set<string> {
    const { container } = this.#modules;
    for (const address of requested) container.requireOwnSource(address);
    return new Set(requested.length > 0 ? requested : container.addresses);
  }

  /** The top block's height, which decides whether dust may be fused. */
  #topHeight(): number {
    return this.#modules.chain.height - 1;
  }
}
