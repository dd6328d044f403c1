# Sourced INSIDE the HIL VM by bench/vm-perf.sh and bench/vm-strace.sh: gpio-sim's
# lines, the token and the body's configuration, then `start_program body|reference`,
# which starts the program as scripts/bench --vm builds it (.build/bench/), waits
# until it answers /status, and sets `pid`.
token=bench-token-0123456789abcdef
Tests/hil/gpio-sim-setup bench GPIO17 GPIO27 GPIO22 GPIO23=pull-up GPIO24=pull-up GPIO25=pull-up GPIO5=pull-up >/dev/null
mkdir -p /run/bench && printf '%s\n' $token >/run/bench/token && chmod 600 /run/bench/token
# Plain HTTP, as the reference speaks (tls = no).
printf '[body]\nname = bench\ntls = no\nlisten = 127.0.0.1:8790\ntoken-file = /run/bench/token\n[oriel]\nsilence = 600s\n[board]\nfile = %s/board/raspberrypi.conf\n' "$PWD" >/run/bench/body.conf

start_program() {
  if [[ $1 == body ]]; then
    .build/bench/studio-body --config /run/bench/body.conf 2>&1 | cat >/run/bench/log &
  else
    .build/bench/reference --port 8790 --token-file /run/bench/token --armed GPIO27 --status-bytes 838 2>&1 | cat >/run/bench/log &
  fi
  for _ in $(seq 100); do curl -sf -H "Authorization: Bearer $token" http://127.0.0.1:8790/status >/dev/null && break; sleep 0.2; done
  pid=$(pgrep -x -f ".build/bench/studio-body --config /run/bench/body.conf|.build/bench/reference .*" | head -1)
}
