#!/usr/bin/env bash
# Runs INSIDE the HIL VM: where a program's CPU goes while wrk loads GET /status.
#   Tests/hil/vm-run --append idle=poll -- bash bench/vm-perf.sh body|reference OUT.txt
# The release binary and the reference as scripts/bench --vm builds them (.build/bench/).
# perf (Debian's linux-perf, run from the host's /) samples cpu-clock: TCG has no PMU.
set -euo pipefail
cd "$(dirname "$0")/.."
who=$1 out=$2
# shellcheck source=vm-program.sh
. bench/vm-program.sh
start_program "$who"
wrk -t1 -c16 -d14s -H "Authorization: Bearer $token" http://127.0.0.1:8790/status >/run/bench/wrk &
sleep 2
perf record -e cpu-clock -F 1000 -g -p "$pid" -o /run/bench/perf.data -- sleep 10 2>/dev/null
wait %2 2>/dev/null || true
set +o pipefail  # head closes the pipe early: that is not a failure
{
  grep -E "Requests/sec|requests in" /run/bench/wrk
  perf report -i /run/bench/perf.data --no-children --sort dso,symbol -g none 2>/dev/null | grep -v '^#' | grep '%' | head -40
  echo "--- by dso"
  perf report -i /run/bench/perf.data --no-children --sort dso -g none 2>/dev/null | grep -v '^#' | grep '%' | head -12
} >"$out"
kill "$pid" 2>/dev/null || true
