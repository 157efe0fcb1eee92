import type { PowImplementationChoice } from './load-hasher.js';
import type { PowImplementationName } from './types.js';

/** `workerData` of every verifier worker. */
export interface VerifierWorkerData {
  readonly implementation: PowImplementationChoice;
  readonly workerIndex: number;
}

/** An error crossing the thread boundary (class identity is lost; `code` and `data` survive). */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

/**
 * A batch of hashing inputs, packed to cross the thread boundary as one transferred buffer.
 * Layout of `inputs`: the inputs of `jobIds[0]`, `jobIds[1]`, ... back to back, with
 * `inputLengths[i]` bytes for job i (shares are 76 bytes each, but any length is allowed).
 */
export interface HashBatchMessage {
  readonly type: 'hash';
  readonly batchId: number;
  readonly jobIds: readonly number[];
  readonly inputLengths: readonly number[];
  readonly inputs: ArrayBuffer;
}

/** Main -> worker. */
export type MainToWorkerMessage = HashBatchMessage | { readonly type: 'close' };

/**
 * The answer to one HashBatchMessage, same job order.
 * Layout of `hashes`: 32 bytes per job, job i at offset 32 * i; a job listed in `failures`
 * (its hasher threw) has 32 zero bytes there. `hashTimeMs[i]` is the time spent hashing job i.
 */
export interface HashResultsMessage {
  readonly type: 'results';
  readonly batchId: number;
  readonly jobIds: readonly number[];
  readonly hashes: ArrayBuffer;
  readonly hashTimeMs: readonly number[];
  readonly failures: readonly { readonly jobId: number; readonly error: SerializedError }[];
}

/** Worker -> main. */
export type WorkerToMainMessage =
  | { readonly type: 'ready'; readonly implementation: PowImplementationName }
  | { readonly type: 'init-failed'; readonly error: SerializedError }
  | {
      readonly type: 'log';
      readonly level: 'warn';
      readonly obj: Record<string, unknown>;
      readonly msg: string;
    }
  | HashResultsMessage;

export const HASH_BYTES = 32;

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(data !== null && typeof data === 'object' ? { data: { ...(data as Record<string, unknown>) } } : {}),
  };
}

/** Packs inputs into the HashBatchMessage layout (one fresh buffer, so it can be transferred). */
export function packInputs(inputs: readonly Uint8Array[]): { buffer: ArrayBuffer; lengths: number[] } {
  const lengths = inputs.map((input) => input.length);
  const packed = new Uint8Array(lengths.reduce((sum, n) => sum + n, 0));
  let offset = 0;
  for (const input of inputs) {
    packed.set(input, offset);
    offset += input.length;
  }
  return { buffer: packed.buffer, lengths };
}
