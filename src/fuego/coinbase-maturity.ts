/**
 * Fuego's coinbase maturity (CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW): a block's coinbase outputs
 * unlock this many blocks after its height, so a pool wallet cannot spend a reward before then.
 */
export const FUEGO_COINBASE_MATURITY_BLOCKS = 60;
