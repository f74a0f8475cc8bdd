#!/usr/bin/env bash
# MCP conformance: runs @modelcontextprotocol/conformance against our /mcp endpoint.
#
#  1. Installs test/conformance/deps (both CLI lines, 0.1.16 and 0.2.0-alpha.12) from the npm
#     registry into a cache folder outside the repo ($CONFORMANCE_CACHE, default
#     ~/.cache/agentrooms-conformance), once per lockfile; later runs need no network. Everything
#     runs on the project's Node 22 (node_modules/.bin first on PATH, as npm run does).
#  2. Starts a redis-server of its own, a real service node (test/conformance/real-node.ts: our
#     tools, keyless requests act as a test team) and the fixture server
#     (test/mcp-fixtures/serve.ts: the reference fixture tools behind the same endpoint).
#  3. Runs the scenarios that apply to the real node, then the full suites against the fixture,
#     each suite against its expected-failures file in test/conformance/expected/ (every entry
#     says why it cannot pass).
#
# Prints one line per suite, then `conformance: N passed, N failed, N expected failures` and the
# machine-readable `# conformance { passed: N, failed: N, expected: N }` (scenario counts) that
# .ci/run adds to its totals. Exits non-zero when any scenario fails unexpectedly or an
# expected-failure entry has gone stale. Results: .tap/conformance/<suite>/.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export PATH="$ROOT/node_modules/.bin:$PATH"
HERE=$ROOT/test/conformance
CACHE=${CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentrooms-conformance}
RESULTS=$ROOT/.tap/conformance
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ar-conformance.XXXXXX")
TOTALS=$WORK/totals.json
PIDS=()

cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT

give_up() {
  echo "conformance: $*" >&2
  echo "conformance: 0 passed, 1 failed, 0 expected failures"
  echo "# conformance { passed: 0, failed: 1, expected: 0 }"
  exit 1
}

# ---- 1. the CLI, cached ----
stamp=$(sha256sum "$HERE/deps/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$CACHE/stamp" 2>/dev/null)" != "$stamp" ] || [ ! -d "$CACHE/node_modules" ]; then
  echo "conformance: installing test/conformance/deps into $CACHE"
  mkdir -p "$CACHE" || give_up "cannot create $CACHE"
  cp "$HERE/deps/package.json" "$HERE/deps/package-lock.json" "$CACHE/"
  # --ignore-scripts: nothing runs at install.
  (cd "$CACHE" && npm ci --prefer-offline --ignore-scripts --no-audit --no-fund --loglevel=error) ||
    give_up "npm ci failed in $CACHE (offline without a filled npm cache?)"
  echo "$stamp" >"$CACHE/stamp"
fi
[ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ] 2>/dev/null ||
  give_up "the CLI needs Node >= 22; this is $(node --version 2>&1) (run npm ci for the project's pinned Node 22)"
cli() { echo "$CACHE/node_modules/conformance-$1/dist/index.js"; } # cli <legacy|modern>

# ---- 2. Redis, the real node, the fixture server ----
free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}
REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG || give_up "redis-server did not start (see $WORK/redis.log)"

start_server() { # start_server NAME SCRIPT -> sets URL
  env -u REDIS_CLUSTER_NODES REDIS_URL="redis://127.0.0.1:$REDIS_PORT" HOST=127.0.0.1 PORT=0 LOG_LEVEL=warn \
    node --import tsx "$2" >"$WORK/$1.out" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 300); do grep -q "^URL " "$WORK/$1.out" 2>/dev/null && break; sleep 0.1; done
  URL=$(sed -n 's/^URL //p' "$WORK/$1.out" | head -n 1)
  [ -n "$URL" ] || { cat "$WORK/$1.out" >&2; give_up "$1 did not start"; }
}
start_server real-node test/conformance/real-node.ts
REAL_URL=$URL
start_server fixture test/mcp-fixtures/serve.ts
FIXTURE_URL=$URL

# ---- 3. the suites ----
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
failed_suites=0

# suite NAME LINE EXPECTED_FILE URL SCENARIOS ARGS... — SCENARIOS is a space-separated list run one
# by one, or "" for one run of the suite ARGS select.
suite() {
  local name=$1 line=$2 expected=$HERE/expected/$3 url=$4 scenarios=$5 out=$RESULTS/$1 log=$WORK/$1.log rc=0
  shift 5
  mkdir -p "$out"
  if [ -z "$scenarios" ]; then
    timeout 170 node "$(cli "$line")" server --url "$url" --expected-failures "$expected" -o "$out" "$@" \
      >"$log" 2>&1 || rc=$?
  else
    for s in $scenarios; do
      timeout 60 node "$(cli "$line")" server --url "$url" --scenario "$s" --expected-failures "$expected" \
        -o "$out" "$@" >>"$log" 2>&1 || rc=$?
    done
  fi
  if ! node --import tsx "$HERE/summarize.ts" "$name" "$out" "$expected" "$rc" "$TOTALS"; then
    rc=1
  fi
  if [ "$rc" != 0 ]; then
    failed_suites=$((failed_suites + 1))
    echo "---- $name: what the conformance CLI reported ----"
    grep -E 'FAILURE|WARNING|✗|rror' "$log" | head -n 40
    echo "---- server logs (tail) ----"
    tail -n 10 "$WORK/real-node.out" "$WORK/fixture.out"
  fi
}
suite real-node-legacy legacy real-legacy.yaml "$REAL_URL" \
  "server-initialize ping tools-list tools-call-error dns-rebinding-protection server-sse-multiple-streams \
server-sse-polling"
suite real-node-2026-07-28 modern real-2026-07-28.yaml "$REAL_URL" \
  "server-stateless tools-list tools-call-error dns-rebinding-protection caching server-sse-multiple-streams \
http-header-validation" \
  --spec-version 2026-07-28
suite fixture-legacy legacy fixture-legacy.yaml "$FIXTURE_URL" "" --suite all
suite fixture-2025-11-25 modern fixture-2025-11-25.yaml "$FIXTURE_URL" "" --requirements 2025-11-25
suite fixture-2026-07-28 modern fixture-2026-07-28.yaml "$FIXTURE_URL" "" --requirements 2026-07-28

totals() {
  local js="const t=JSON.parse(require('fs').readFileSync(process.argv[1],'utf8'))"
  node -e "$js;console.log(t.passed,t.failed,t.expected)" "$TOTALS" 2>/dev/null || echo "0 1 0"
}
read -r passed failed expected < <(totals)
if [ "$failed_suites" != 0 ] && [ "$failed" = 0 ]; then failed=$failed_suites; fi
echo "conformance: $passed passed, $failed failed, $expected expected failures"
echo "# conformance { passed: $passed, failed: $failed, expected: $expected }"
[ "$failed" = 0 ]
