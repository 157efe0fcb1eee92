import { RpcError } from '../../src/rpc/rpc-error.js';

/** The RpcError `promise` rejects with; anything else (an answer, another error) fails the test. */
export async function rpcErrorOf(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected an RpcError');
}
