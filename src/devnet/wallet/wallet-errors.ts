/**
 * walletd's application errors: HTTP 200, `{"code":-32000,"message":M,"data":{"application_code":N}}`.
 * The numbers come from three lists inside walletd (the wallet's own, the service's and the daemon
 * connection's), so they overlap: match on code and message together. Those marked "captured" were
 * seen from the real 1.9.3 walletd; the others are its source's (WalletErrors.h, NodeErrors.h).
 */
export const WalletAppError = {
  WRONG_KEY_FORMAT: { code: 1, message: 'Wrong key format' },
  WRONG_PAYMENT_ID_FORMAT: { code: 2, message: 'Wrong payment id format' },
  /** captured (bad transaction hash) */
  WRONG_HASH_FORMAT: { code: 3, message: 'Wrong block id format' },
  /** captured (bad payment id in sendTransaction) */
  INTERNAL_WALLET_ERROR: { code: 5, message: 'Internal error occurred' },
  /** captured (too many decoys asked for, or the daemon has too few of an amount) */
  MIXIN_COUNT_TOO_BIG: { code: 6, message: 'MixIn count is too big' },
  /** sendFusionTransaction: no power of ten has 12 ready outputs */
  NOTHING_TO_OPTIMIZE: { code: 7, message: 'There are no inputs to optimize' },
  /** sendFusionTransaction: fewer than 12 inputs fit in the fusion size limit (walletd's typo kept) */
  MINIMUM_INPUT_COUNT: { code: 8, message: 'Not enough inputs to optimizne, minimum 12' },
  /** sendFusionTransaction: threshold at or below the dust threshold (20000) */
  THRESHOLD_TOO_LOW: { code: 10, message: 'Threshold must be greater than 10' },
  /** captured */
  BAD_ADDRESS: { code: 11, message: 'Invalid address' },
  /** the built transaction is over 799400 bytes (too many inputs) */
  TRANSACTION_SIZE_TOO_BIG: {
    code: 13,
    message: 'Transaction size is too big, please optimize your wallet.',
  },
  /** captured ("WRONG_AMOUNT" inside walletd) */
  INSUFFICIENT_FUNDS: { code: 14, message: 'Insufficient funds' },
  /** captured */
  ZERO_DESTINATION: { code: 17, message: 'The destination is empty' },
  ADDRESS_ALREADY_EXISTS: { code: 26, message: 'Address already exists' },
  WRONG_PARAMETERS: { code: 28, message: 'Wrong parameters passed' },
  /** captured */
  OBJECT_NOT_FOUND: { code: 29, message: 'Object not found' },
  /** captured */
  WALLET_NOT_FOUND: { code: 30, message: 'Requested wallet not found' },
  /** captured */
  CHANGE_ADDRESS_REQUIRED: { code: 31, message: 'Change address required' },
  /** captured */
  CHANGE_ADDRESS_NOT_FOUND: { code: 32, message: 'Change address not found' },
  DEPOSIT_TERM_TOO_SMALL: { code: 33, message: 'Deposit term is too small' },
  DEPOSIT_TERM_TOO_BIG: { code: 34, message: 'Deposit term is too big' },
  DEPOSIT_AMOUNT_TOO_SMALL: { code: 35, message: 'Deposit amount is too small' },
  DEPOSIT_DOES_NOT_EXIST: { code: 36, message: 'Deposit not found' },
  DEPOSIT_LOCKED: { code: 37, message: 'Deposit is locked' },
  /** sendFusionTransaction: several source addresses and no destinationAddress */
  DESTINATION_ADDRESS_REQUIRED: { code: 39, message: 'Destination address required' },
  /** sendFusionTransaction: destinationAddress not in the container */
  DESTINATION_ADDRESS_NOT_FOUND: { code: 40, message: 'Destination address not found' },
  /**
   * sendTransaction, createDeposit, estimateFusion, sendFusionTransaction while the daemon is 2 or
   * more blocks behind its peers (WalletService.cpp's knownBlockCount − localBlockCount > 2); not
   * while walletd's own scan trails (see WalletSender.requireDaemonSynced)
   */
  DAEMON_NOT_SYNCED: { code: 41, message: 'Daemon is not synchronized' },
  /** daemon connection list: the daemon refused to relay the transaction */
  NODE_INTERNAL_ERROR: { code: 5, message: 'Internal node error' },
  /** daemon connection list: walletd could not reach the daemon */
  NODE_CONNECT_ERROR: { code: 7, message: "Can't connect to daemon" },
  /** daemon connection list (not produced by the devnet) */
  NODE_NETWORK_ERROR: { code: 3, message: 'Network error' },
  /** daemon connection list (not produced by the devnet) */
  NODE_BUSY: { code: 4, message: 'Node is busy' },
} as const;

export type WalletAppErrorName = keyof typeof WalletAppError;

/** An application error of the wallet service (`-32000` + `application_code`). */
export class WalletRpcError extends Error {
  readonly errorName: WalletAppErrorName;
  readonly applicationCode: number;
  constructor(name: WalletAppErrorName) {
    super(WalletAppError[name].message);
    this.name = 'WalletRpcError';
    this.errorName = name;
    this.applicationCode = WalletAppError[name].code;
  }
}

/** Missing required field or wrong JSON type: `-32600 Invalid Request`. */
export class WalletInvalidRequest extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'WalletInvalidRequest';
  }
}
