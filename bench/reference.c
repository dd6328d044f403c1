/* The C reference for scripts/bench --vm (issue 13): the smallest program that
 * does what the body's hot paths do, with no house rules, only to measure
 * the body against. Not part of the product.
 *
 *   - libmicrohttpd 0.9.75 in external epoll mode with suspend/resume, driven
 *     by one loop thread (as Sources/BodyHTTP/MHDDaemon.swift does);
 *   - every request needs "Authorization: Bearer TOKEN", compared in constant time;
 *   - POST /face {"onair":{"on":B}} drives the lamp line (libgpiod 1.6) and
 *     answers a status document;
 *   - the onair button (active low, pull-up, both edges, leading-edge press,
 *     10 ms debounce): a press arms, a second press 0.4-5 s after fires and
 *     queues {"kind":"onair","on":true}; GET /ears?after=N&wait=S waits for it;
 *   - GET /status answers a document of --status-bytes bytes (the body's size).
 *
 * cc -O2 -o reference reference.c $(pkg-config --cflags --libs libmicrohttpd libgpiod)
 * reference --port P --token-file F --lamp GPIO17 --button GPIO23 --status-bytes N
 * reference ... --lamp none     (no GPIO: only for /status, bench/host-status.py)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gpiod.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define MAX_WAITERS 64

static char token[256];
static size_t token_len;
static struct gpiod_line *lamp, *button;
static int lamp_on;
static int status_bytes = 1200;
static uint64_t last_item;               /* the last item's number, "next" in /ears */
static uint64_t fired_item;              /* the last queued item (0: none) */
static double armed_at = -1, last_edge = -100;
static int contact_down;

struct waiter { struct MHD_Connection *c; double deadline; int live; };
static struct waiter waiters[MAX_WAITERS];

/* Per request: its POST body and whether its wait ran out or was answered. */
struct req { char body[512]; size_t len; int woken; };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int token_ok(const char *header) {
    static const char prefix[] = "Bearer ";
    if (!header || strncmp(header, prefix, 7) != 0) return 0;
    const char *t = header + 7;
    size_t n = strlen(t);
    unsigned char diff = n != token_len;
    for (size_t i = 0; i < token_len; i++) diff |= (unsigned char)(t[i < n ? i : 0] ^ token[i]);
    return diff == 0;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned code, char *text, size_t len) {
    struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ok = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result status(struct MHD_Connection *c) {
    char doc[8192];
    int n = snprintf(doc, sizeof doc, "{\"onair\":{\"value\":\"%s\",\"armed\":%s},\"lamp\":%s,\"next\":%llu,\"pad\":\"",
                     armed_at >= 0 ? "armed" : (lamp_on ? "on" : "off"), armed_at >= 0 ? "true" : "false",
                     lamp_on ? "true" : "false", (unsigned long long)last_item);
    int want = status_bytes < (int)sizeof doc - 4 ? status_bytes : (int)sizeof doc - 4;
    while (n < want - 2) doc[n++] = 'x';
    doc[n++] = '"'; doc[n++] = '}';
    return answer(c, 200, doc, n);
}

static enum MHD_Result ears_answer(struct MHD_Connection *c, uint64_t after) {
    char doc[256];
    int n;
    if (fired_item > after)
        n = snprintf(doc, sizeof doc, "{\"boot\":\"ref\",\"items\":[{\"n\":%llu,\"kind\":\"onair\",\"on\":true}],\"next\":%llu}",
                     (unsigned long long)fired_item, (unsigned long long)last_item);
    else
        n = snprintf(doc, sizeof doc, "{\"boot\":\"ref\",\"items\":[],\"next\":%llu}", (unsigned long long)last_item);
    return answer(c, 200, doc, n);
}

static enum MHD_Result access_cb(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                 const char *version, const char *data, size_t *size, void **ctx) {
    (void)cls; (void)version;
    struct req *r = *ctx;
    if (!r) { r = calloc(1, sizeof *r); *ctx = r; return MHD_YES; }
    if (*size) {
        size_t take = *size < sizeof r->body - 1 - r->len ? *size : sizeof r->body - 1 - r->len;
        memcpy(r->body + r->len, data, take); r->len += take; r->body[r->len] = 0;
        *size = 0;
        return MHD_YES;
    }
    if (!token_ok(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization")))
        return answer(c, 401, "{\"error\":\"no token\"}", 20);
    if (!strcmp(url, "/status")) return status(c);
    if (!strcmp(url, "/face") && !strcmp(method, "POST")) {
        const char *on = strstr(r->body, "\"on\"");
        if (!on) return answer(c, 400, "{\"error\":\"no onair.on\"}", 23);
        on = strchr(on + 4, ':');
        while (on && (*++on == ' ')) {}
        int value = on && !strncmp(on, "true", 4);
        if (value != lamp_on) { lamp_on = value; if (lamp) gpiod_line_set_value(lamp, value); }
        armed_at = -1;
        return status(c);
    }
    if (!strcmp(url, "/ears")) {
        const char *a = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "after");
        const char *w = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "wait");
        uint64_t after = a ? strtoull(a, NULL, 10) : 0;
        double wait = w ? atof(w) : 0;
        if ((fired_item > after) || wait <= 0 || r->woken) return ears_answer(c, after);
        for (int i = 0; i < MAX_WAITERS; i++)
            if (!waiters[i].live) {
                waiters[i] = (struct waiter){c, now() + wait, 1};
                r->woken = 1; /* the next call after the resume answers */
                MHD_suspend_connection(c);
                return MHD_YES;
            }
        return answer(c, 503, "{\"error\":\"busy\"}", 16);
    }
    return answer(c, 404, "{\"error\":\"no route\"}", 20);
}

static void completed_cb(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_RequestTerminationCode code) {
    (void)cls; (void)c; (void)code;
    free(*ctx); *ctx = NULL;
}

static void wake_waiters(int all_due_only) {
    double t = now();
    for (int i = 0; i < MAX_WAITERS; i++)
        if (waiters[i].live && (!all_due_only || waiters[i].deadline <= t)) {
            waiters[i].live = 0;
            MHD_resume_connection(waiters[i].c);
        }
}

/* One edge on the onair button: leading-edge press, 10 ms debounce, two-press. */
static void edge(double at) {
    if (at - last_edge < 0.010) return;
    last_edge = at;
    if (contact_down) { contact_down = 0; return; }
    contact_down = 1;
    if (armed_at >= 0 && at - armed_at >= 5) armed_at = -1;
    if (armed_at < 0) { armed_at = at; return; }
    if (at - armed_at < 0.4) return;
    armed_at = -1;
    fired_item = ++last_item;
    wake_waiters(0);
}

static volatile sig_atomic_t stop;
static void on_signal(int s) { (void)s; stop = 1; }

int main(int argc, char **argv) {
    const char *port = "8790", *token_file = NULL, *lamp_name = "GPIO17", *button_name = "GPIO23";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port")) port = argv[i + 1];
        else if (!strcmp(argv[i], "--token-file")) token_file = argv[i + 1];
        else if (!strcmp(argv[i], "--lamp")) lamp_name = argv[i + 1];
        else if (!strcmp(argv[i], "--button")) button_name = argv[i + 1];
        else if (!strcmp(argv[i], "--status-bytes")) status_bytes = atoi(argv[i + 1]);
        else { fprintf(stderr, "reference: unknown option %s\n", argv[i]); return 2; }
    }
    FILE *f = token_file ? fopen(token_file, "r") : NULL;
    if (!f || !fgets(token, sizeof token, f)) { fprintf(stderr, "reference: no token file\n"); return 2; }
    fclose(f);
    token[strcspn(token, "\r\n")] = 0;
    token_len = strlen(token);

    /* --lamp none: no GPIO at all, for /status on a machine with no GPIO chip (bench/host-status.py). */
    int lines = !lamp_name || strcmp(lamp_name, "none");
    int button_fd = -1;
    if (lines) {
        lamp = gpiod_line_find(lamp_name);
        button = gpiod_line_find(button_name);
        if (!lamp || !button) { fprintf(stderr, "reference: lines %s/%s not found\n", lamp_name, button_name); return 1; }
        if (gpiod_line_request_output(lamp, "reference", 0) < 0) { perror("reference: lamp"); return 1; }
        struct gpiod_line_request_config cfg = {"reference", GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES,
                                                GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP | GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW};
        if (gpiod_line_request(button, &cfg, 0) < 0) { perror("reference: button"); return 1; }
        button_fd = gpiod_line_event_get_fd(button);
    }

    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
                                            (uint16_t)atoi(port), NULL, NULL, access_cb, NULL,
                                            MHD_OPTION_NOTIFY_COMPLETED, completed_cb, NULL,
                                            MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_END);
    if (!d) { fprintf(stderr, "reference: cannot listen on %s\n", port); return 1; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 0};
    epoll_ctl(ep, EPOLL_CTL_ADD, info->epoll_fd, &ev);
    ev.data.u32 = 1;
    if (button_fd >= 0) epoll_ctl(ep, EPOLL_CTL_ADD, button_fd, &ev);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    fprintf(stderr, "reference: listening on %s\n", port);

    while (!stop) {
        /* The nearest of MHD's own timeout and the waiting /ears deadlines. */
        int timeout = -1;
        MHD_UNSIGNED_LONG_LONG mhd;
        if (MHD_get_timeout(d, &mhd) == MHD_YES) timeout = mhd > 60000 ? 60000 : (int)mhd;
        double t = now();
        for (int i = 0; i < MAX_WAITERS; i++)
            if (waiters[i].live) {
                int ms = waiters[i].deadline <= t ? 0 : (int)((waiters[i].deadline - t) * 1000) + 1;
                if (timeout < 0 || ms < timeout) timeout = ms;
            }
        struct epoll_event got[4];
        int n = epoll_wait(ep, got, 4, timeout);
        if (n < 0 && errno != EINTR) break;
        for (int i = 0; i < n; i++)
            if (got[i].data.u32 == 1) {
                struct gpiod_line_event e;
                if (gpiod_line_event_read(button, &e) == 0) edge(e.ts.tv_sec + e.ts.tv_nsec / 1e9);
            }
        wake_waiters(1);
        MHD_run(d);
    }
    MHD_stop_daemon(d);
    if (lines) {
        gpiod_line_release(lamp);
        gpiod_line_release(button);
    }
    return 0;
}
