#!/usr/bin/env bash
# README "Try it": runs the pool on the built-in devnet.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-prereqs.sh
npm run --silent build
exec node dist/cli.js demo "$@"
