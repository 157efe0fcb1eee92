import type { Redis } from 'ioredis';

/** KEYS and ARGV of one script call, in the order the script reads them. */
export interface ScriptCall {
  readonly keys: string[];
  readonly args: string[];
}

/** Runs one Lua script with its KEYS and ARGV; resolves with the script's raw reply. */
export type ScriptRunner = (call: ScriptCall) => Promise<unknown>;

type DefinedCommand = (numberOfKeys: number, ...keysAndArgs: string[]) => Promise<unknown>;

/**
 * Registers a script with ioredis' defineCommand (EVALSHA, with EVAL the first time on each
 * connection and after NOSCRIPT) and returns a typed runner. The number of keys is passed per
 * call because the batch script takes a variable number of miner/worker keys; every key is in
 * KEYS so the script is valid on Redis Cluster.
 */
export function defineScript(redis: Redis, commandName: string, lua: string): ScriptRunner {
  redis.defineCommand(commandName, { lua });
  const command = (redis as unknown as Record<string, DefinedCommand | undefined>)[commandName];
  if (typeof command !== 'function') throw new Error(`ioredis did not define ${commandName}`);
  return (call) => command.call(redis, call.keys.length, ...call.keys, ...call.args);
}
