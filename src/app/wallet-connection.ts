import type { PoolConfig } from '../config/schema.js';
import { WalletClient, type WalletClientOptions } from '../rpc/wallet-client.js';
import { rpcTlsOf } from './rpc-tls.js';

/** walletd's --rpc-password: in the environment, never in the config file. */
export const WALLET_RPC_PASSWORD_ENV = 'FUEGO_POOL_WALLET_RPC_PASSWORD';

/**
 * A client of walletd as `wallet` of the config describes it, with walletd's credentials when a
 * user or a password is set (walletd asks for them in that case, and only then), over HTTPS with
 * `wallet.tls` (a CA file that cannot be read throws a ConfigError naming the key). Every process
 * that calls walletd (the pool, `payout`, `report`, `wallet optimize`) builds its client here.
 */
export function walletClientOf(
  wallet: Readonly<PoolConfig['wallet']>,
  env: Readonly<Record<string, string | undefined>>,
  extra: Pick<WalletClientOptions, 'retries' | 'observe'>,
): WalletClient {
  const password = env[WALLET_RPC_PASSWORD_ENV] ?? '';
  const auth = wallet.rpcUser !== '' || password !== '' ? { user: wallet.rpcUser, password } : undefined;
  return new WalletClient({
    host: wallet.host,
    port: wallet.port,
    timeoutMs: wallet.timeoutMs,
    ...extra,
    ...(auth === undefined ? {} : { basicAuth: auth }),
    ...(wallet.tls === undefined ? {} : { tls: rpcTlsOf(wallet.tls, 'wallet.tls') }),
  });
}
