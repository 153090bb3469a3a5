#!/usr/bin/env bash
# `make docs-quickstart`: runs the quickstart's commands (README.md, docs/tutorials/quickstart.md) against a real
# `make up` with the demo model, and checks their exit codes and the output the pages show: a STANDARD task, the
# COMPLEX plan approved, a REST submit and read, the OpenAI client, the Web UI, and a task finishing after its worker
# was killed. It needs make up's ports free (stop any running make up first); everything it starts, it stops. Its
# database starts empty each run (QUICKSTART_DATABASE_URL), as on a new machine: a question asked before would be
# answered from the task index instead.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.tools/node/bin:$PATH"
export DATABASE_URL=${QUICKSTART_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/weft_quickstart}
node -e '
  const { Client } = require("pg");
  const url = new URL(process.env.DATABASE_URL);
  const database = url.pathname.slice(1);
  url.pathname = "/postgres";
  const client = new Client({ connectionString: url.toString() });
  client.connect().then(() => client.query(`DROP DATABASE IF EXISTS "${database}"`)).then(() => client.end());
' || exit 1
out=$(mktemp -d)
failures=0
up_pid=

say() { echo "[quickstart] $*"; }
fail() { say "FAIL: $*"; failures=$((failures + 1)); }
expect() { # expect <file> <extended regex> <what>
  if grep -Eq -- "$2" "$1"; then say "ok: $3"; else fail "$3 (no /$2/ in $1)"; fi
}
start_up() {
  setsid make up >"$out/up-$1.log" 2>&1 &
  up_pid=$!
  for _ in $(seq 1 900); do
    grep -q 'Weft is ready' "$out/up-$1.log" && return 0
    kill -0 "$up_pid" 2>/dev/null || break
    sleep 1
  done
  fail "make up ($1) did not get ready (see $out/up-$1.log)"
  return 1
}
stop_up() {
  [ -n "$up_pid" ] && kill -0 "$up_pid" 2>/dev/null || return 0
  kill -INT -- "-$up_pid"
  for _ in $(seq 1 60); do kill -0 "$up_pid" 2>/dev/null || return 0; sleep 1; done
  kill -KILL -- "-$up_pid"
}
trap stop_up EXIT
weft() { npm run --silent weft -- "$@"; }

start_up first || exit 1
expect "$out/up-first.log" 'API key \(development\) +weft_' 'make up prints the development key'

weft submit "What is durable execution?" --watch >"$out/standard.txt" 2>&1 || fail 'submit --watch exited non-zero'
expect "$out/standard.txt" 'STATUS_UPDATE +mode STANDARD' 'the question is routed to one agent'
expect "$out/standard.txt" '^status +COMPLETED' 'the task completes'

weft submit "Research and compare how long a year is" --watch >"$out/complex.txt" 2>&1 &
watch_pid=$!
for _ in $(seq 1 120); do grep -q 'approve:' "$out/complex.txt" && break; sleep 1; done
approval=$(grep 'approve:' "$out/complex.txt" | head -1 | awk '{print $NF}' | tr -d "'")
weft approve "$approval" >"$out/approve.txt" 2>&1 || fail 'approve exited non-zero'
expect "$out/approve.txt" 'approval sent; the task continues' 'the approval is sent'
wait "$watch_pid" || fail 'the COMPLEX watch exited non-zero'
expect "$out/complex.txt" 'DECOMPOSITION_COMPLETED 3 agents: researcher, analyst, writer' 'the COMPLEX plan has three agents'
expect "$out/complex.txt" 'APPROVAL_DECISION +approved' 'the plan is approved'
expect "$out/complex.txt" '^status +COMPLETED' 'the COMPLEX task completes'

key=$(cat .state/dev-api-key)
curl -sS -f -H "Authorization: Bearer $key" -H 'content-type: application/json' \
  -d '{"query": "What is a Temporal activity?"}' http://127.0.0.1:8080/api/v1/tasks >"$out/curl.json" || fail 'the REST submit failed'
expect "$out/curl.json" '"status":"STATUS_CODE_OK"' 'the REST submit answers STATUS_CODE_OK'
task=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).task_id)' <"$out/curl.json")
for _ in $(seq 1 60); do
  curl -sS -f -H "Authorization: Bearer $key" "http://127.0.0.1:8080/api/v1/tasks/$task" >"$out/curl-status.json" || break
  grep -q '"status":"TASK_STATUS_COMPLETED"' "$out/curl-status.json" && break
  sleep 1
done
expect "$out/curl-status.json" '"status":"TASK_STATUS_COMPLETED"' 'the REST task reads back COMPLETED'

WEFT_API_KEY=$key npx tsx docs/examples/openai-chat.mts >"$out/openai.txt" 2>&1 || fail 'the OpenAI client exited non-zero'
expect "$out/openai.txt" '^chatcmpl-task-' 'the OpenAI client gets a completion named by its task'

[ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8233/)" = 200 ] && say 'ok: the Web UI answers' || fail 'the Web UI does not answer'

weft submit "Explain what happens to a running task when its worker crashes" --watch >"$out/crash.txt" 2>&1 &
crash_watch=$!
for _ in $(seq 1 60); do grep -q AGENT_STARTED "$out/crash.txt" && break; sleep 1; done
sleep 3
worker=$(ps -o pid=,args= -s "$up_pid" | awk '/node .*workers\/main\.ts/ && !/with-node/ {print $1; exit}')
[ -n "$worker" ] && kill -9 "$worker" && say "killed the worker ($worker)" || fail 'no worker to kill'
for _ in $(seq 1 60); do kill -0 "$up_pid" 2>/dev/null || break; sleep 1; done
expect "$out/up-first.log" 'worker exited with code null; stopping everything' 'make up stops with its worker'
start_up second || exit 1
wait "$crash_watch" || fail 'the watch through the crash exited non-zero'
expect "$out/crash.txt" 'connection lost' 'the watch lost its connection'
expect "$out/crash.txt" '^status +COMPLETED' 'the task completes after the restart'
crashed=$(grep -o 'task-[0-9a-f-]*' "$out/crash.txt" | head -1)
weft verify "$crashed" >"$out/verify.txt" 2>&1 || fail 'weft verify exited non-zero'
expect "$out/verify.txt" '^OK: 1 tasks verified' 'store and Temporal agree'

stop_up
say "outputs in $out"
[ "$failures" -eq 0 ] && say 'passed' || { say "$failures failed"; exit 1; }
