// Runs INSIDE the HIL VM: writes a gpio-sim line's `pull` as fast as the
// kernel allows, to make pulses far shorter than a shell echo can (contact
// bounce, a 1 ms tap). Built on the host by Tests/hil/gpio-tests.
//
// Usage: gpio-pulse PULL_FILE STEP...
//   d      write "pull-down"        u      write "pull-up"
//   +N     wait N microseconds (spins on CLOCK_MONOTONIC below 2 ms)
//   =FILE  wait (up to 10 s) until FILE's first byte changes: a gpio-sim
//          `value` file, so the next step lands just after a line the
//          daemon drives (the lamp) switches
// Prints "FIRST_NS LAST_NS WRITES": CLOCK_MONOTONIC just before the first
// write and just after the last (the kernel's edge timestamps' clock), then
// a second line with the time after each write and a third with how long
// each write took, so a caller can tell a VM stall from the code's doing: a
// blip that lasted longer than asked, or a write stalled inside gpio-sim
// (which raises the edge's interrupt, stamped then, before it sets the
// value), either of which spreads a shape's edges further than asked.
//
// It runs at SCHED_FIFO 99 when allowed (root in the VM), above the kernel's
// threaded GPIO handlers (FIFO 50): otherwise each write wakes the handler,
// which preempts the writer and makes every write cost a context switch
// (0.3-1.3 ms under TCG). Above them, the writes go back to back and the
// handlers run after: exactly a pulse shorter than the handler's latency.
// Exit 1 with a message naming the file and the cause on any failure.
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char first_byte(const char *path) {
    char c = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || pread(fd, &c, 1, 0) != 1) {
        fprintf(stderr, "gpio-pulse: cannot read %s: %s\n", path, strerror(errno));
        exit(1);
    }
    close(fd);
    return c;
}

// Spins on the file at normal priority (at FIFO 99 it would starve the
// daemon that must switch the line on a 2-vCPU guest), then takes FIFO back.
static void wait_change(const char *path, const struct sched_param *fifo) {
    struct sched_param normal = { .sched_priority = 0 };
    sched_setscheduler(0, SCHED_OTHER, &normal);
    char was = first_byte(path);
    uint64_t until = now_ns() + 10000000000ull;
    while (first_byte(path) == was) {
        if (now_ns() > until) { fprintf(stderr, "gpio-pulse: %s did not change within 10 s\n", path); exit(1); }
    }
    sched_setscheduler(0, SCHED_FIFO, fifo);
}

static void wait_us(long us) {
    uint64_t until = now_ns() + (uint64_t)us * 1000u;
    if (us >= 2000) {
        struct timespec ts = { .tv_sec = (us - 1000) / 1000000, .tv_nsec = ((us - 1000) % 1000000) * 1000 };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
    }
    while (now_ns() < until) {}
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: gpio-pulse PULL_FILE STEP... (d, u, +MICROSECONDS, =FILE)\n");
        return 2;
    }
    const char *path = argv[1];
    struct sched_param sp = { .sched_priority = 99 };
    if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
        fprintf(stderr, "gpio-pulse: runs without SCHED_FIFO (%s): writes will be slower\n", strerror(errno));
    mlockall(MCL_CURRENT | MCL_FUTURE);
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        fprintf(stderr, "gpio-pulse: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    uint64_t first = 0, last = 0;
    int writes = 0;
    uint64_t *times = calloc((size_t)argc, sizeof *times);
    uint64_t *took = calloc((size_t)argc, sizeof *took);
    if (!times || !took) { fprintf(stderr, "gpio-pulse: out of memory\n"); return 1; }
    for (int i = 2; i < argc; i++) {
        const char *step = argv[i];
        if (step[0] == '+') {
            char *end;
            long us = strtol(step + 1, &end, 10);
            if (*end || us < 0) { fprintf(stderr, "gpio-pulse: bad wait \"%s\"\n", step); return 2; }
            wait_us(us);
            continue;
        }
        if (step[0] == '=') {
            wait_change(step + 1, &sp);
            continue;
        }
        const char *pull = strcmp(step, "d") == 0 ? "pull-down" : strcmp(step, "u") == 0 ? "pull-up" : NULL;
        if (!pull) { fprintf(stderr, "gpio-pulse: bad step \"%s\" (d, u, +MICROSECONDS or =FILE)\n", step); return 2; }
        uint64_t before = now_ns();
        if (!writes) first = before;
        if (pwrite(fd, pull, strlen(pull), 0) < 0) {
            fprintf(stderr, "gpio-pulse: cannot write \"%s\" to %s: %s\n", pull, path, strerror(errno));
            return 1;
        }
        last = now_ns();
        took[writes] = last - before;
        times[writes++] = last;
    }
    close(fd);
    printf("%llu %llu %d\n", (unsigned long long)first, (unsigned long long)last, writes);
    for (int i = 0; i < writes; i++) printf("%s%llu", i ? " " : "", (unsigned long long)times[i]);
    printf("\n");
    for (int i = 0; i < writes; i++) printf("%s%llu", i ? " " : "", (unsigned long long)took[i]);
    printf("\n");
    free(times);
    free(took);
    return 0;
}
