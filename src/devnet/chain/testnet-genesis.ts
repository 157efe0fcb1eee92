import type { Block } from '../../fuego/block.js';
import { hexToBytes } from '../../fuego/hex.js';
import { parseTransaction } from '../../fuego/transaction.js';

/**
 * Fuego's testnet genesis (spec §9): v1, timestamp 0, zero prev id, nonce 71, and the coinbase below
 * (one output of 305176116). Its id, 3c1fde6f…, is what the captured testnet daemon reports at height 0.
 */
const GENESIS_COINBASE_HEX =
  '013c01ff0001b4bcc29101029b2e4c0281c0b02e7c53291a94d1d0cbff8883f8024f5142ee494ffbbd0880712101bd4e0bf284c04d004fd016a21405046e8267ef81328cabf3017c4c24b273b25a';
const GENESIS_NONCE = 71;

/** The devnet's block 0: Fuego's testnet genesis block. */
export function testnetGenesisBlock(): Block {
  return {
    majorVersion: 1,
    minorVersion: 0,
    timestamp: 0n,
    prevId: new Uint8Array(32),
    nonce: GENESIS_NONCE,
    baseTransaction: parseTransaction(hexToBytes(GENESIS_COINBASE_HEX)),
    transactionHashes: [],
  };
}
