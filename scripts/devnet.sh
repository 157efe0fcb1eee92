#!/usr/bin/env bash
# README "Try it": runs the pool on the built-in devnet.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-prereqs.sh
npm run --silent build
# The young generation of deploy/fuego-pool.service (short GC pauses under connection floods).
exec node --max-semi-space-size=2 dist/cli.js demo "$@"
