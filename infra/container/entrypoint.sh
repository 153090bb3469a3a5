#!/bin/sh
# The container's command picks the process: api, worker, migrate, prepare-temporal, demo-model,
# or weft <command>.
set -e
cd /app
command="${1:-api}"
if [ $# -gt 0 ]; then shift; fi
flags=""
case "$command" in
  api) entry=api/main.ts ;;
  # The worker's Node flags and environment, as `make up` runs it (infra/processes.ts says why).
  worker) entry=workers/main.ts; flags=$(cat infra/worker-node-flags); set -a; . infra/worker-env; set +a ;;
  migrate) entry=infra/migrate.ts ;;
  prepare-temporal) entry=infra/prepare-temporal.ts ;;
  demo-model) entry=test/model-server/main.ts ;;
  weft) entry=cli/weft.ts ;;
  *) echo "unknown command '$command': api, worker, migrate, prepare-temporal, demo-model, or weft <command>" >&2; exit 64 ;;
esac
# $flags unquoted: one word per flag.
exec node $flags --import tsx "$entry" "$@"
