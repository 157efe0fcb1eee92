import { BinaryWriter } from '../../fuego/binary-writer.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import { cnFastHash } from '../../fuego/keccak.js';
import { serializeTransaction, type Transaction, type TransactionOutput } from '../../fuego/transaction.js';
import { deriveOutputKey } from '../chain/output-keys.js';
import { decomposeAmount } from '../chain/reward-schedule.js';

type AddressKeys = { spendPublicKey: string; viewPublicKey: string };

/** One destination of a transaction being built (key outputs are split into decimal digits). */
export interface PlannedOutput {
  readonly address: string;
  readonly keys: AddressKeys;
  readonly amount: bigint;
  readonly kind: 'key' | 'multisignature';
  readonly term?: number;
}

export interface TransactionSpec {
  /** The wallet's outputs spent (key inputs). */
  readonly inputs: readonly { readonly keyHex: string; readonly amount: bigint }[];
  /** Inputs spent besides them (a deposit being withdrawn). */
  readonly extraInputs: Transaction['inputs'];
  /** Decoys per key input: rings of mixin + 1. */
  readonly mixin: number;
  readonly outputs: readonly PlannedOutput[];
  readonly change: { readonly address: string; readonly amountAtomic: bigint };
  readonly changeKeys: AddressKeys;
  readonly unlockTime: bigint;
  /** 64 hex, or '' for none. */
  readonly paymentId: string;
  /** Caller bytes appended to the extra. */
  readonly extra: Uint8Array;
  readonly version: number;
  readonly txPublicKey: Uint8Array;
  /** Distinguishes the stand-in signatures of one transaction from another's. */
  readonly serial: bigint;
}

export interface BuiltTransaction {
  readonly hash: string;
  readonly bytes: Uint8Array;
  /** Who each new output pays, recorded on the chain when the transaction is committed. */
  readonly owners: readonly { keyHex: string; address: string }[];
}

/**
 * Serializes a wallet transaction as the real one lays it out: extra = 01 <tx key> [02 21 00 <payment
 * id>] <caller bytes>; outputs split into decimal digits (change last); rings of `mixin + 1` members.
 * The devnet has no stealth addresses or ring signatures: output keys are derived from the tx key and
 * the receiver, ring members are placeholders and signatures deterministic filler of the right size.
 */
export function buildTransaction(spec: TransactionSpec): BuiltTransaction {
  const outputs: TransactionOutput[] = [];
  const owners: { keyHex: string; address: string }[] = [];
  const addOutput = (
    address: string,
    keys: AddressKeys,
    amount: bigint,
    kind: 'key' | 'multisignature',
    term: number,
  ) => {
    const key = deriveOutputKey(spec.txPublicKey, outputs.length, keys);
    if (kind === 'multisignature') {
      outputs.push({ kind, amount, keys: [key], requiredSignatureCount: 1, term });
    } else {
      outputs.push({ kind, amount, key });
    }
    owners.push({ keyHex: bytesToHex(key), address });
  };
  for (const output of spec.outputs) {
    const parts = output.kind === 'key' ? decomposeAmount(output.amount) : [output.amount];
    for (const part of parts) addOutput(output.address, output.keys, part, output.kind, output.term ?? 0);
  }
  for (const part of decomposeAmount(spec.change.amountAtomic))
    addOutput(spec.change.address, spec.changeKeys, part, 'key', 0);

  const extra = new BinaryWriter(64 + spec.extra.length).writeU8(0x01).writeHash32(spec.txPublicKey);
  if (spec.paymentId !== '')
    extra.writeU8(0x02).writeU8(33).writeU8(0x00).writeHash32(hexToBytes(spec.paymentId));
  extra.writeBytes(spec.extra);
  const inputs: Transaction['inputs'] = [
    ...spec.inputs.map((o) => ({
      kind: 'key' as const,
      amount: o.amount,
      outputIndexes: Array.from({ length: spec.mixin + 1 }, (_, i) => i),
      keyImage: keyImageOf(o.keyHex),
    })),
    ...spec.extraInputs,
  ];
  const signatures = inputs.map((input, i) =>
    Array.from(
      {
        length:
          input.kind === 'key'
            ? input.outputIndexes.length
            : input.kind === 'multisignature'
              ? input.signatureCount
              : 0,
      },
      (_, j) => {
        const half = cnFastHash(new TextEncoder().encode(`fuego-devnet-signature/${spec.serial}/${i}/${j}`));
        const signature = new Uint8Array(64);
        signature.set(half, 0);
        signature.set(half, 32);
        return signature;
      },
    ),
  );
  const transaction: Transaction = {
    version: spec.version,
    unlockTime: spec.unlockTime,
    inputs,
    outputs,
    extra: extra.toBytes(),
    signatures,
  };
  const bytes = serializeTransaction(transaction);
  return { hash: bytesToHex(cnFastHash(bytes)), bytes, owners };
}

/** The devnet's stand-in for a key image: a deterministic hash of the output key it spends. */
export function keyImageOf(outputKeyHex: string): Uint8Array {
  return cnFastHash(new TextEncoder().encode(`fuego-devnet-key-image/${outputKeyHex}`));
}
