# shellcheck shell=bash
# Shell helpers the test scripts share. Source it, do not run it:
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"      (from Tests/hil, Tests/gps)
#   . "$(dirname "$0")/../Tests/lib.sh"              (from scripts)
# Set LIB_NAME first to prefix say/die with the script's name, QUIET=1 to hush say.

LIB_NAME=${LIB_NAME:-$(basename "$0")}

# The toolchain, unless one is on PATH already.
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH

# The one set of flags every stage builds with (scripts/test's build stage first):
# the same flags mean the same products, so a later stage builds nothing.
SWIFT_BUILD_FLAGS=(--build-tests --enable-code-coverage)
build_tests() { swift build "${SWIFT_BUILD_FLAGS[@]}" "$@"; }

say() { [[ ${QUIET:-0} == 1 ]] || echo "$LIB_NAME: $*" >&2; }
die() { echo "$LIB_NAME: $*" >&2; exit 1; }

# TAP-like results: ok/bad count, check runs a command, finish ends the script.
passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
bad() { echo "not ok - $*"; failed=$((failed + 1)); }
check() { # check DESCRIPTION COMMAND...
    local d=$1; shift
    if "$@"; then ok "$d"; else bad "$d"; fi
}
finish() { echo "$passed passed, $failed failed"; ((failed == 0)); exit; }

wait_for() { # wait_for SECONDS COMMAND...: poll every 0.2 s
    local n=$(($1 * 5)); shift
    for _ in $(seq "$n"); do "$@" && return 0; sleep 0.2; done
    return 1
}

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
