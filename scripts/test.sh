#!/usr/bin/env bash
# The one test command (README "Run the tests"; .ci/run calls exactly this).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-prereqs.sh

echo "==> build"
npm run --silent build
echo "==> lint, format and type check"
npm run --silent check
echo "==> tests"
npx vitest run "$@"
