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
if [ "$#" -eq 0 ]; then
  # The long, time-bounded suites: 1,000,000-line stratum fuzz, 60 s daemon outage, and more.
  echo "==> slow suites (fuzz and faults at full size)"
  FUEGO_SLOW=1 npx vitest run test/fuzz test/faults
fi

