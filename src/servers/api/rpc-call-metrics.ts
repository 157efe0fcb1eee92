import type { PoolMetrics } from './api-metrics.js';

/**
 * Wraps an RPC client so that every async method call is timed into `metrics` (name = method).
 * The client itself stays unaware of metrics; the composition root wraps DaemonClient/WalletClient.
 */
export function instrumentRpcClient<T extends object>(
  client: T,
  service: 'daemon' | 'wallet',
  metrics: PoolMetrics,
): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'close') return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (answer) => {
            metrics.observeRpc(service, property, performance.now() - started);
            return answer;
          },
          (error: unknown) => {
            const code = (error as { code?: unknown } | null)?.code;
            metrics.observeRpc(
              service,
              property,
              performance.now() - started,
              typeof code === 'string' ? code : 'UNKNOWN',
            );
            throw error;
          },
        );
      };
    },
  });
}
