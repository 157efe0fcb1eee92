#!/usr/bin/env node
import { runCli } from './cli/main.js';

const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };

runCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`fuego-pool: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 70;
  },
);
