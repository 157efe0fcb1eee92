import { describe, expect, it } from 'vitest';
import { parseBlock } from '../../src/fuego/block.js';
import { blockId } from '../../src/fuego/block-hash.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { readFixture, readJsonFixture } from '../helpers/fixtures.js';

interface GenesisVector {
  genesis: { block_blob: string; block_id: string; testnet_nonce: number };
}

describe('genesis block id against a live daemon', () => {
  it('the testnet genesis (nonce 71) hashes to the id a real fuegod reported, so the mainnet id computed the same way can be trusted', () => {
    const { genesis } = readJsonFixture<GenesisVector>('vectors/format.json');
    const mainnet = parseBlock(hexToBytes(genesis.block_blob));
    expect(bytesToHex(blockId(mainnet))).toBe(genesis.block_id);

    const testnet = { ...mainnet, nonce: genesis.testnet_nonce };
    // The private testnet the captures come from: on_getblockhash(0) and getcurrencyid.
    const reported = (
      JSON.parse(readFixture('fuegod-rpc/24-on_getblockhash-0.response.body')) as { result: string }
    ).result;
    const currencyId = (
      JSON.parse(readFixture('fuegod-rpc/26-getcurrencyid.response.body')) as {
        result: { currency_id_blob: string };
      }
    ).result.currency_id_blob;
    expect(bytesToHex(blockId(testnet))).toBe(reported);
    expect(currencyId).toBe(reported);
  });
});
