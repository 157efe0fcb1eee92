import { describe, expect, it } from 'vitest';
import { classifySendError } from '../../../src/leader/payouts/send-outcome.js';
import { RpcError } from '../../../src/rpc/rpc-error.js';

describe('send error classification', () => {
  const walletError = (applicationCode: number, rpcMessage: string) =>
    new RpcError('RPC_ERROR', rpcMessage, { rpcCode: -32000, rpcMessage, applicationCode });
  it('rolls back only refusals that come before broadcasting', () => {
    expect(classifySendError(walletError(14, 'Insufficient funds')).kind).toBe('not-sent');
    expect(classifySendError(walletError(5, 'Internal error occurred')).kind).toBe('unknown');
    // walletd's first check, before any transfer is built; it does not repeat once the daemon
    // syncs, but every batch until then meets it: the pass stops (notReady), no backoff.
    expect(classifySendError(walletError(41, 'Daemon is not synchronized'))).toMatchObject({
      kind: 'not-sent',
      repeats: false,
      notReady: true,
    });
    expect(classifySendError(walletError(14, 'Insufficient funds')).notReady).toBe(false);
    expect(classifySendError(new RpcError('RPC_TIMEOUT', 't')).kind).toBe('unknown');
    expect(classifySendError(new RpcError('RPC_UNREACHABLE', 'x', { errno: 'ECONNRESET' })).kind).toBe(
      'unknown',
    );
    expect(classifySendError(new RpcError('RPC_UNREACHABLE', 'x', { errno: 'ECONNREFUSED' })).kind).toBe(
      'not-sent',
    );
    expect(classifySendError(new Error('?')).kind).toBe('unknown');
  });

  it('rolls back a send walletd refused for its credentials: it checks them before reading the request', () => {
    const refused = classifySendError(new RpcError('RPC_UNAUTHORIZED', 'sendTransaction: HTTP 401'));
    expect(refused).toMatchObject({ kind: 'not-sent', repeats: false, notReady: false });
  });

  it("treats the wallet's refusals about its own outputs as repeating: too few decoys (6), too big (13)", () => {
    const mixin = classifySendError(walletError(6, 'MixIn count is too big'));
    const tooBig = classifySendError(
      walletError(13, 'Transaction size is too big, please optimize your wallet.'),
    );
    expect([mixin.kind, mixin.repeats]).toEqual(['not-sent', true]);
    expect([tooBig.kind, tooBig.repeats]).toEqual(['not-sent', true]);
    expect(classifySendError(walletError(14, 'Insufficient funds')).repeats).toBe(false);
    // Code 13 with another message is not walletd's size refusal: nothing is assumed.
    expect(classifySendError(walletError(13, 'something else')).kind).toBe('unknown');
  });
});
