/* What a wake-up costs on this machine, with nothing of the body's in it
 * (issue 21): a timerfd every 50 ms, epoll_wait, read, then PAGES distinct
 * pages of a buffer touched LINES cache lines each, as a turn touches its
 * code and data after a sleep. Prints the thread's CPU a wake from
 * /proc/thread-self/schedstat (nanoseconds; the first 5 wakes left out).
 *
 *   cc -O2 -o wake-cost bench/wake-cost.c && ./wake-cost 0 1 && ./wake-cost 400 1
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

static unsigned long long run_ns(void) {
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long ns = 0;
    if (!f || fscanf(f, "%llu", &ns) != 1) { perror("wake-cost: schedstat"); exit(1); }
    fclose(f);
    return ns;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: wake-cost PAGES LINES\n"); return 2; }
    int pages = atoi(argv[1]), lines = atoi(argv[2]);
    if (pages < 0 || lines < 1 || lines > 64) { fprintf(stderr, "wake-cost: PAGES >= 0, LINES 1 to 64\n"); return 2; }
    volatile char *m = malloc((size_t)pages * 4096 + 4096);
    if (!m) return 1;
    memset((char *)m, 1, (size_t)pages * 4096);
    int t = timerfd_create(CLOCK_MONOTONIC, 0), e = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN};
    epoll_ctl(e, EPOLL_CTL_ADD, t, &ev);
    struct itimerspec every = {{0, 50000000}, {0, 50000000}};
    timerfd_settime(t, 0, &every, NULL);
    unsigned long long start = 0;
    long sum = 0;
    for (int i = 0; i < 65; i++) {
        if (i == 5) start = run_ns();
        struct epoll_event got[4];
        uint64_t n;
        if (epoll_wait(e, got, 4, -1) < 1 || read(t, &n, sizeof n) != sizeof n) { perror("wake-cost"); return 1; }
        for (int p = 0; p < pages; p++)
            for (int l = 0; l < lines; l++) sum += m[(size_t)p * 4096 + (size_t)l * 64];
    }
    printf("%d pages x %d lines a wake: %.1f us of CPU a wake (%ld)\n", pages, lines, (run_ns() - start) / 1e3 / 60, sum & 1);
    return 0;
}
