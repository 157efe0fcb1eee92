#!/usr/bin/env bash
# Makes a fresh clone runnable: checks Node, installs npm packages (which builds dist/ and the
# native addon) and makes sure redis-server exists. Sourced by test.sh and devnet.sh.
set -euo pipefail

need_node_major=20
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt "$need_node_major" ]; then
  echo "fuego-pool needs Node.js >= $need_node_major (found: $(node -v 2>/dev/null || echo none))" >&2
  exit 1
fi

# Install only when package.json or the lock file changed since the last install, so repeated
# runs stay fast. `npm install --no-save` installs the locked versions like `npm ci` does, but also
# works where npm is set to omit registry addresses from lock files (that setting drops other
# platforms' optional packages from the lock, which `npm ci` then refuses).
stamp=node_modules/.fuego-pool-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  echo "==> installing npm packages"
  npm install --no-save --no-audit --no-fund
  touch "$stamp"
fi


# redis-server: the demo and the tests start private instances. openssl: self-signed TLS certificates.
# prometheus: its promtool checks the shipped alerting rules.
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v chromium >/dev/null 2>&1 || missing+=(chromium) # the dashboard's browser test
command -v promtool >/dev/null 2>&1 || missing+=(prometheus) # promtool checks deploy/prometheus/alerts.yml
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing ${missing[*]} with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # The redis and prometheus packages may start system services; the tests never use them.
  else
    echo "fuego-pool: missing ${missing[*]}. Install it (Debian/Ubuntu: sudo apt-get install ${missing[*]};" >&2
    echo "macOS: brew install redis openssl) and run this command again." >&2
    exit 1
  fi
fi

