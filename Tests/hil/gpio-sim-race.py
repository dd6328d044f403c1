#!/usr/bin/python3
"""In the HIL VM, no studio-body code: libgpiod 2.1.3's gpiomon holds edge
requests on four gpio-sim lines, the chip is taken away (live=0) and gpiomon
is SIGKILLed a random 0-30 ms later ("during": its requests close inside the
kernel's teardown) or after the live=0 write returned ("after"), then the
chip comes back. Stops at the first holder the kernel does not let die.
Usage (host): . Tests/hil/cache/libgpiod2/env; Tests/hil/vm-run
  --env TOOLS=$PWD/Tests/hil/cache/gpiod2-tools/usr/bin --env LIBDIR=$LIBGPIOD2_LIB
  -- /usr/bin/python3 Tests/hil/gpio-sim-race.py ROUNDS [SEED] [during|after]
On Debian 6.1.192 "during" oopsed in round 16 (GPF in kmem_cache_alloc from
register_handler_proc, in the next gpiomon's GPIO_V2_GET_LINE_IOCTL); "after"
ran 145 rounds with no oops, until the GPIO number space ran out."""
import os, random, signal, subprocess, sys, time
sys.path.insert(0, os.path.join(os.getcwd(), "Tests/hil"))
import importlib.util
spec = importlib.util.spec_from_file_location("d", "Tests/hil/daemon-gpio-tests.py")
d = importlib.util.module_from_spec(spec); spec.loader.exec_module(d)
tools = os.environ["TOOLS"]
env = dict(os.environ, LD_LIBRARY_PATH=os.environ["LIBDIR"])
chip = d.SimChip("race", d.LINES)
rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
n = int(sys.argv[1])
mode = sys.argv[3] if len(sys.argv) > 3 else "during"
for i in range(1, n + 1):
    proc = subprocess.Popen([f"{tools}/gpiomon", "-c", chip.chip, "GPIO23", "GPIO24", "GPIO25", "GPIO5"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    time.sleep(0.25)
    delay = rnd.uniform(0, 0.03)
    chip.pull("GPIO23", "pull-down")
    pid = os.fork()
    if pid == 0:
        chip.live(False)
        os._exit(0)
    if mode == "after":
        os.waitpid(pid, 0)  # the chip's teardown (live=0's write) has returned
        pid = None
        time.sleep(delay)
    else:
        time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        print(f"round {i}: gpiomon {proc.pid} killed {delay * 1000:.1f} ms after live=0 is not reaped in 10 s", flush=True)
        print(d.where_it_is(proc.pid), flush=True)
        sys.exit(1)
    if pid:
        os.waitpid(pid, 0)
    chip.live(True)
    if i % 20 == 0:
        print(f"round {i}: fine", flush=True)
print(f"{n} rounds: every holder died", flush=True)
# What the kernel said: an oops anywhere, and 6.1's leak warning at a removal with interrupts held.
log = subprocess.run(["dmesg"], capture_output=True, text=True).stdout.splitlines()
oops = [i for i, l in enumerate(log) if d.OOPS.search(l)]
leaks = sum(1 for l in log if "remove_proc_entry" in l)
print(f"kernel: {len(oops)} oops, {leaks} remove_proc_entry warnings", flush=True)
if oops:
    print("\n".join(log[oops[0]:oops[0] + 30]), flush=True)
    sys.exit(1)
