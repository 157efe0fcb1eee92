import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import { tempDir } from './temp-dir.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with in-memory streams, as a user would run `fuego-pool ...args`. */
export async function runCliForTest(args: string[], stdinText = ''): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await runCli(args, {
    stdout,
    stderr,
    stdin: Readable.from([stdinText]),
    env: {},
  });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

/**
 * A config file for an operator's Redis command (`report`, `block settle`, `balance`): silent logs,
 * this Redis, and `extra` top-level sections (e.g. `daemon`).
 */
export function writeRedisConfig(
  redisUrl: string,
  keyPrefix: string,
  extra: Readonly<Record<string, unknown>> = {},
): string {
  const path = join(tempDir('fuego-cli-config-'), 'config.json');
  writeFileSync(
    path,
    JSON.stringify({ log: { level: 'silent' }, redis: { url: redisUrl, keyPrefix }, ...extra }),
  );
  return path;
}
