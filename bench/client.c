/* The timing client of scripts/bench --vm (issue 13), run in the VM against
 * the body or the C reference alike. Plain sockets and sysfs, no library, so
 * the client's own cost stays small and the same for both.
 *
 *   client push PORT TOKEN SIM_VALUE_FILE N
 *     N pushes to POST /face, alternating {"onair":{"on":true}} and false,
 *     one kept-alive connection. Per push prints "lamp_ms answer_ms": from the
 *     request's send to the lamp line's level changing in gpio-sim's sysfs,
 *     and to the answer's last byte.
 *   client press PORT TOKEN SIM_PULL_FILE N
 *     N two-presses of the onair button by gpio-sim pull (press, 0.12 s,
 *     release, a second press 0.6 s after the first) while a GET /ears waits.
 *     Per press prints "ears_ms": from the second press's pull to the waiting
 *     /ears answered with an item. Between presses pushes onair on (settling the request) and off.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port;
static const char *token;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void pause_for(double s) {
    struct timespec t = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&t, &t) < 0 && errno == EINTR) {}
}

static void die(const char *what) { perror(what); exit(1); }

static int dial(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) die("client: connect");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static int request(char *out, size_t cap, const char *method, const char *path, const char *body) {
    size_t blen = body ? strlen(body) : 0;
    return snprintf(out, cap, "%s %s HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer %s\r\n"
                    "X-Cordelia-Doing: bench\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                    method, path, token, blen, body ? body : "");
}

static void send_all(int fd, const char *buf, size_t n) {
    while (n) {
        ssize_t w = send(fd, buf, n, 0);
        if (w <= 0) die("client: send");
        buf += w; n -= (size_t)w;
    }
}

/* Reads an answer into buf; 1 when whole, 0 when not yet (nonblocking), -1 on a close. */
struct answer { char buf[65536]; size_t len; };
static int take(int fd, struct answer *a, int flags) {
    for (;;) {
        char *end = memmem(a->buf, a->len, "\r\n\r\n", 4);
        if (end) {
            char *cl = strcasestr(a->buf, "Content-Length:");
            size_t want = (size_t)(end + 4 - a->buf) + (cl && cl < end ? strtoul(cl + 15, NULL, 10) : 0);
            if (a->len >= want) {
                a->buf[a->len] = 0;
                return 1;
            }
        }
        ssize_t r = recv(fd, a->buf + a->len, sizeof a->buf - 1 - a->len, flags);
        if (r == 0) return -1;
        if (r < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return -1;
        }
        a->len += (size_t)r;
    }
}

static struct answer ans;

static void call(int fd, const char *method, const char *path, const char *body) {
    char req[1024];
    send_all(fd, req, (size_t)request(req, sizeof req, method, path, body));
    ans.len = 0;
    if (take(fd, &ans, 0) != 1) { fprintf(stderr, "client: no answer to %s %s\n", method, path); exit(1); }
}

static char sysfs_level(int fd) {
    char c = '?';
    if (pread(fd, &c, 1, 0) != 1) die("client: sim value");
    return c;
}

static int push(int argc, char **argv) {
    if (argc < 2) return 2;
    int value = open(argv[0], O_RDONLY);
    if (value < 0) die("client: sim value file");
    int n = atoi(argv[1]);
    int fd = dial();
    call(fd, "POST", "/face", "{\"onair\":{\"on\":false}}");
    for (int i = 0; i < n; i++) {
        int on = i % 2 == 0;
        char req[1024];
        int len = request(req, sizeof req, "POST", "/face", on ? "{\"onair\":{\"on\":true}}" : "{\"onair\":{\"on\":false}}");
        char want = on ? '1' : '0';
        ans.len = 0;
        double t0 = now(), lamp = 0, answered = 0;
        send_all(fd, req, (size_t)len);
        while (!lamp || !answered) {
            if (!lamp && sysfs_level(value) == want) lamp = now();
            if (!answered) {
                int r = take(fd, &ans, MSG_DONTWAIT);
                if (r < 0) { fprintf(stderr, "client: connection closed\n"); return 1; }
                if (r == 1) answered = now();
            }
            if (now() - t0 > 5) { fprintf(stderr, "client: push %d: no lamp change or answer in 5 s\n", i); return 1; }
        }
        printf("%.3f %.3f\n", (lamp - t0) * 1e3, (answered - t0) * 1e3);
        pause_for(0.02 + (i % 7) * 0.005);
    }
    return 0;
}

static unsigned long long next_of(const char *doc) {
    const char *p = strstr(doc, "\"next\":");
    return p ? strtoull(p + 7, NULL, 10) : 0;
}

static void pull(int fd, const char *how) {
    if (pwrite(fd, how, strlen(how), 0) < 0) die("client: sim pull");
}

static int press(int argc, char **argv) {
    if (argc < 2) return 2;
    int pullfd = open(argv[0], O_WRONLY);
    if (pullfd < 0) die("client: sim pull file");
    int n = atoi(argv[1]);
    int ctl = dial();
    pull(pullfd, "pull-up");
    for (int i = 0; i < n; i++) {
        /* On Air shown on settles the last press's request; then off again. */
        call(ctl, "POST", "/face", "{\"onair\":{\"on\":true}}");
        call(ctl, "POST", "/face", "{\"onair\":{\"on\":false}}");
        pause_for(0.3);
        call(ctl, "GET", "/ears?wait=0", NULL);
        char *body = strstr(ans.buf, "\r\n\r\n");
        unsigned long long next = next_of(body ? body : ans.buf);
        char path[128], req[1024];
        snprintf(path, sizeof path, "/ears?after=%llu&wait=4", next);
        int waiter = dial();
        send_all(waiter, req, (size_t)request(req, sizeof req, "GET", path, NULL));
        pause_for(0.15);
        double first = now();
        pull(pullfd, "pull-down");
        pause_for(0.12);
        pull(pullfd, "pull-up");
        double left = 0.6 - (now() - first);
        if (left > 0) pause_for(left);
        ans.len = 0;
        double t0 = now();
        pull(pullfd, "pull-down");
        int r = take(waiter, &ans, 0);
        double t1 = now();
        pause_for(0.12);
        pull(pullfd, "pull-up");
        close(waiter);
        if (r != 1) { fprintf(stderr, "client: press %d: the waiting /ears closed\n", i); return 1; }
        if (!strstr(ans.buf, "onair")) {
            /* The wait ran out with no item: under a loaded host the two presses' edges
               can land closer than 0.4 s (one touch) or a sleep overran. Said, not timed. */
            fprintf(stderr, "client: press %d: /ears answered without an onair item after %.0f ms\n", i, (t1 - t0) * 1e3);
            printf("miss\n");
            continue;
        }
        printf("%.3f\n", (t1 - t0) * 1e3);
        fflush(stdout);
    }
    call(ctl, "POST", "/face", "{\"onair\":{\"on\":false}}");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: client push|press PORT TOKEN FILE N\n");
        return 2;
    }
    port = atoi(argv[2]);
    token = argv[3];
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(argv[1], "push")) return push(argc - 4, argv + 4);
    if (!strcmp(argv[1], "press")) return press(argc - 4, argv + 4);
    fprintf(stderr, "client: unknown mode %s\n", argv[1]);
    return 2;
}
