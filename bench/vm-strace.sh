#!/usr/bin/env bash
# Runs INSIDE the HIL VM: the system calls of one program, as scripts/bench --vm builds it (.build/bench/).
#   Tests/hil/vm-run --append idle=poll -- bash bench/vm-strace.sh body|reference status|press OUT
# status: wrk -c16 for 5 s plain, then 5 s under `strace -c -f` (calls a request).
# press: `strace -tt -f` over three two-presses by gpio-sim pull while a GET /ears
#   waits (bench/client press): the confirming edge's turn, call by call.
# OUT must be on a share the host sees (vm-run's default: Tests/hil/out/share).
set -euo pipefail
cd "$(dirname "$0")/.."
who=$1 what=$2 out=$3
# shellcheck source=vm-program.sh
. bench/vm-program.sh
start_program "$who"
if [[ $what == status ]]; then
  { echo "=== $who, wrk -c16 5 s"; wrk -t1 -c16 -d5s -H "Authorization: Bearer $token" http://127.0.0.1:8790/status | grep -E "requests in|Requests/sec"; } >"$out"
  strace -c -f -p "$pid" -o /run/bench/strace.txt & sp=$!
  sleep 0.5
  { echo "=== $who, the same under strace -c"; wrk -t1 -c16 -d5s -H "Authorization: Bearer $token" http://127.0.0.1:8790/status | grep -E "requests in"; } >>"$out"
  kill -INT $sp; sleep 1
  head -25 /run/bench/strace.txt >>"$out"
else
  pull=$(python3 -c 'import json; print(json.load(open("/run/hil-gpio/bench.json"))["lines"]["GPIO23"]["sim"])')/pull
  strace -tt -f -p "$pid" -o /run/bench/strace.txt & sp=$!
  sleep 1
  .build/bench/client press 8790 $token "$pull" 3 >/run/bench/press.txt
  sleep 0.5; kill $sp; sleep 0.5
  { echo "=== $who: press -> /ears ms under strace"; cat /run/bench/press.txt; echo ---; cat /run/bench/strace.txt; } >"$out"
fi
