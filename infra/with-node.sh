#!/usr/bin/env bash
# Runs a command on the pinned Node LTS once make has installed it (.tools/node), else on the
# machine's Node: the npm scripts go through here so that `npm run weft` matches what make runs.
node_bin="$(cd "$(dirname "$0")/.." && pwd)/.tools/node/bin"
if [[ -x "$node_bin/node" ]]; then export PATH="$node_bin:$PATH"; fi
exec "$@"
