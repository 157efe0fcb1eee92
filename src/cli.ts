#!/usr/bin/env node
import { runCli } from './cli/main.js';

const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };

// A reader that went away (`fuego-pool status | head -3`) loses the rest of the output; the
// command still finishes (a standalone payout pass is not cut short) with its own exit code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

runCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`fuego-pool: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 70;
  },
);
