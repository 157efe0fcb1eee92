import { StratumClient, type WireJob } from './stratum-client.js';

export interface LoggedInMiner {
  readonly client: StratumClient;
  readonly sessionId: string;
  readonly job: WireJob;
}

export interface ConnectOptions {
  readonly port: number;
  /** The login of miner `index` (e.g. `ADDRESS.rigN+1`). */
  readonly login: (index: number) => string;
  /** Connections opened (and logged in) concurrently. */
  readonly batchSize: number;
  /**
   * Source addresses to spread connections over (127.0.0.0/8 is all loopback on Linux): each
   * gives ~28k ephemeral ports towards one server port.
   */
  readonly localAddresses?: readonly string[];
  /** Called after each batch with the number logged in so far. */
  readonly onBatch?: (loggedIn: number) => void;
}

/**
 * Opens and logs in miners `from`..`to-1`, `batchSize` at a time (each batch waits for every login
 * reply). Throws on the first refused login or failed connect, naming the miner.
 */
export async function connectMiners(
  from: number,
  to: number,
  options: ConnectOptions,
): Promise<LoggedInMiner[]> {
  const miners: LoggedInMiner[] = [];
  const sources = options.localAddresses ?? [];
  for (let start = from; start < to; start += options.batchSize) {
    const end = Math.min(to, start + options.batchSize);
    const settled = await Promise.allSettled(
      Array.from({ length: end - start }, async (_, k) => {
        const index = start + k;
        const source = sources.length > 0 ? sources[index % sources.length] : undefined;
        const client = await StratumClient.connect(options.port, source).catch((error: Error) => {
          throw new Error(`miner ${index}: connect failed: ${error.message}`);
        });
        const outcome = await client.login(options.login(index));
        if (!outcome.ok) {
          client.destroy();
          throw new Error(`miner ${index}: login refused: ${outcome.message}`);
        }
        return { client, sessionId: outcome.sessionId, job: outcome.job };
      }),
    );
    const batch: LoggedInMiner[] = [];
    for (const result of settled) if (result.status === 'fulfilled') batch.push(result.value);
    const failure = settled.find((result) => result.status === 'rejected');
    if (failure) {
      for (const miner of [...miners, ...batch]) miner.client.destroy();
      throw failure.reason;
    }
    miners.push(...batch);
    options.onBatch?.(miners.length);
  }
  return miners;
}
