import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { DevnetConfigError, parseDevnetConfig } from '../../src/devnet/devnet-config.js';
import { send, startTestDevnet } from './devnet-test-helpers.js';

const ALIAS_ADDRESS =
  'fireHjjMGFRabTVWrZVhb3jYtTvGT4Uzb6TLETEtUHxvP1MW1m6b59FL3mgNB8nBAMATiFHzyR3S7i7Ud7UQg4Tp9vXXHSUhx2';

describe('fee pool, alias and HEAT endpoints', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet({
      extensions: {
        feeAddress: ALIAS_ADDRESS,
        aliases: [{ alias: 'pool', address: ALIAS_ADDRESS }],
        deposits: [
          {
            id: 1,
            amount: 8_000_000_000,
            term: 16440,
            unlock_height: 10,
            creating_tx_hash: 'ab'.repeat(32),
            deposit_type: 'HEAT',
          },
        ],
        feePool: {
          fee_pool_balance: 1000,
          current_epoch_swap_fees: 10,
          total_cd_locked: 8_000_000_000,
          current_epoch_number: 3,
        },
        epochs: [{ epoch_number: 2, swap_fees: 5, total_cd_locked: 1 }],
      },
    });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  const post = async (path: string, body: unknown) =>
    JSON.parse((await send(`${devnet.daemonUrl}${path}`, 'POST', JSON.stringify(body))).text) as Record<
      string,
      unknown
    >;

  test('alias lookup: leading @ optional, unknown is found:false with status OK', async () => {
    expect(await post('/get_alias', { alias: '@pool' })).toEqual({
      address: ALIAS_ADDRESS,
      alias: 'pool',
      found: true,
      status: 'OK',
    });
    expect(await post('/get_alias', { alias: 'pool' })).toEqual({
      address: ALIAS_ADDRESS,
      alias: 'pool',
      found: true,
      status: 'OK',
    });
    expect(await post('/get_alias', { alias: 'nobody' })).toEqual({
      address: '',
      alias: 'nobody',
      found: false,
      status: 'OK',
    });
    expect((await post('/get_alias_by_address', { address: ALIAS_ADDRESS }))['alias']).toBe('pool');
    expect((await post('/get_all_aliases', {}))['aliases']).toEqual([
      { address: ALIAS_ADDRESS, alias: 'pool' },
    ]);
  });

  test('fee pool, epochs, deposits, fee address', async () => {
    expect(await post('/get_fee_pool_info', {})).toEqual({
      current_epoch_number: 3,
      current_epoch_swap_fees: 10,
      fee_pool_balance: 1000,
      status: 'OK',
      total_cd_locked: 8_000_000_000,
    });
    expect((await post('/get_epoch_history', { count: 5 }))['epochs']).toHaveLength(1);
    expect(((await post('/getdeposits', {}))['deposits'] as unknown[]).length).toBe(1);
    expect((await post('/get_maturing_deposits', { current_height: 5, maturing_in: 0 }))['deposits']).toEqual(
      [],
    );
    expect(await post('/getfeeaddress', {})).toEqual({ fee_address: ALIAS_ADDRESS, status: 'OK' });
    const rolled = await post('/rollover_deposit', { deposit_id: '1', new_term: 6 });
    expect(rolled['status']).toBe('OK');
  });

  test('--no-extensions: the endpoints are 404 like on real 1.9.3', async () => {
    const plain = await startTestDevnet({ daemon: { extensions: false } });
    try {
      const reply = await send(`${plain.daemonUrl}/get_alias`, 'POST', '{"alias":"pool"}');
      expect(reply.status).toBe(404);
      expect(reply.text).toBe('Requested url is not found\n');
    } finally {
      await plain.stop();
    }
  });
});

describe('devnet config', () => {
  test('defaults', () => {
    const config = parseDevnetConfig({});
    expect(config.daemon.port).toBe(18180);
    expect(config.wallet.port).toBe(8070);
    expect(Object.isFrozen(config.daemon)).toBe(true);
  });

  test.each([
    [{ daemon: { port: 'x' } }, 'daemon.port'],
    [{ daemon: { difficulty: 0 } }, 'daemon.difficulty'],
    [{ wallet: { sed: 'typo' } }, 'wallet.sed'],
    [{ extensions: { aliases: [{ alias: '', address: 'x' }] } }, 'extensions.aliases.0.alias'],
  ])('%j names %s', (input, key) => {
    let error: unknown;
    try {
      parseDevnetConfig(input);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DevnetConfigError);
    expect((error as DevnetConfigError).code).toBe('INVALID_DEVNET_CONFIG');
    expect((error as DevnetConfigError).data['key']).toBe(key);
  });
});
