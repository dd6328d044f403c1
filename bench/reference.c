/* The C reference for scripts/bench --vm (issue 13): the smallest program that
 * does what the body's hot paths do, with no house rules, only to measure
 * the body against. Not part of the product.
 *
 *   - libmicrohttpd 0.9.75 in external epoll mode with suspend/resume, driven
 *     by one loop thread (as Sources/BodyHTTP/MHDDaemon.swift does);
 *   - every request needs "Authorization: Bearer TOKEN", compared in constant time;
 *   - POST /face {"onair":{"on":B}} drives the lamp line (libgpiod 1.6) and
 *     answers a status document;
 *   - the onair button (active low, pull-up, both edges), confirmed as the
 *     body confirms a press (issue 18, BodyCore/Contact.swift): the first edge
 *     opens a 10 ms window, a timerfd at its end and a read of the line decide
 *     (still down: a press at the first edge's time; back: noise); a press
 *     arms, a second press 0.4-5 s after fires and queues
 *     {"kind":"onair","on":true}; GET /ears?after=N&wait=S waits for it;
 *   - GET /status answers a document of --status-bytes bytes (the body's size),
 *     GET /metrics a text of --metrics-bytes bytes;
 *   - the armed LED, as the body shows it (docs/DESIGN.md section 2): lit
 *     steady while armed; after the fire, blinking 4 Hz (a timerfd every
 *     0.125 s) while the press is asked, until the next POST /face or 15 s
 *     (the On Air wait). The line is --armed GPIO27 when given, else a
 *     variable: the rule's wake-ups are the body's, so a press round's CPU
 *     compares code, not the rule (issue 21, as the bounce window above).
 *     Only the press round's shape: an arming that runs out leaves it lit,
 *     and an arming while asked keeps the blink;
 *   - with --lamp none the button is a simulated line, as on the body's sim
 *     board: POST /sim/press?presses=N&gap=S schedules its edges on a timerfd
 *     (down at each press, up 0.2 s later, as SimBoard.pressLength), a read
 *     says the level of the last edge whose time has come, and the request is
 *     answered once its last press has landed (its release's window over), as
 *     the body's AgentHTTP.simPress answers (bench/alloc.py).
 *
 * cc -O2 -o reference reference.c $(pkg-config --cflags --libs libmicrohttpd libgpiod)
 * reference --port P --token-file F --lamp GPIO17 --button GPIO23 [--armed GPIO27] --status-bytes N
 * reference ... --lamp none     (no GPIO: a simulated button; bench/host-status.py, bench/alloc.py)
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
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_WAITERS 64

static char token[256];
static size_t token_len;
static struct gpiod_line *lamp, *button, *armed_led;
static int lamp_on;
static int status_bytes = 1200;
static int metrics_bytes = 1200;
static uint64_t served;                  /* requests answered, for /metrics */
static uint64_t last_item;               /* the last item's number, "next" in /ears */
static uint64_t fired_item;              /* the last queued item (0: none) */
static double armed_at = -1;
/* The contact: the level it believes, and the open bounce window (first edge, end). */
static int contact_down, window_open;
static double window_first, window_end;
static int confirm_fd = -1;              /* a timerfd at the window's end */
/* The armed LED: its level, and the asking blink's timerfd and end. */
static int armed_lit, blink_fd = -1;
static double asking_since = -1, blink_next;

/* The simulated line (--lamp none): edges due, in time order, on a timerfd. */
#define MAX_SIM_EDGES 64
struct sim_edge { double at; int down; };
static struct sim_edge sim_due[MAX_SIM_EDGES];
static int sim_count, sim_down, sim_fd = -1;
static double sim_presses_end;

/* A suspended request: a waiting /ears, or a /sim/press (sim) until its last press lands. */
struct waiter { struct MHD_Connection *c; double deadline; int live, sim; };
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

static void arm_at(int fd, double at) {
    struct itimerspec t = {0};
    if (at > 0) { t.it_value.tv_sec = (time_t)at; t.it_value.tv_nsec = (long)((at - (double)(time_t)at) * 1e9); }
    if (at > 0 && t.it_value.tv_sec == 0 && t.it_value.tv_nsec == 0) t.it_value.tv_nsec = 1;
    timerfd_settime(fd, TFD_TIMER_ABSTIME, &t, NULL);
}

static void armed_set(int lit) {
    if (lit == armed_lit) return;
    armed_lit = lit;
    if (armed_led) gpiod_line_set_value(armed_led, lit);
}

/* Asking ends (a push came, or the 15 s wait ran out): the LED dark, the timer off. */
static void asking_ends(void) {
    if (asking_since < 0) return;
    asking_since = -1;
    arm_at(blink_fd, 0);
    armed_set(0);
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned code, char *text, size_t len) {
    served++;
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

static enum MHD_Result metrics(struct MHD_Connection *c) {
    char doc[8192];
    int n = snprintf(doc, sizeof doc, "# TYPE reference_requests_total counter\nreference_requests_total %llu\n"
                     "reference_lamp_on %d\nreference_armed %d\nreference_items_total %llu\n",
                     (unsigned long long)served, lamp_on, armed_at >= 0, (unsigned long long)last_item);
    int want = metrics_bytes < (int)sizeof doc - 2 ? metrics_bytes : (int)sizeof doc - 2;
    if (n < want - 1) { doc[n++] = '#'; while (n < want - 1) doc[n++] = 'x'; doc[n++] = '\n'; }
    struct MHD_Response *r = MHD_create_response_from_buffer(n, doc, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4");
    served++;
    enum MHD_Result ok = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ok;
}

static void sim_arm(void) { arm_at(sim_fd, sim_count ? sim_due[0].at : 0); }

static void sim_set(int down, double at) {
    if (sim_count == MAX_SIM_EDGES) return;
    int i = sim_count;
    while (i > 0 && sim_due[i - 1].at > at) { sim_due[i] = sim_due[i - 1]; i--; }
    sim_due[i] = (struct sim_edge){at, down};
    sim_count++;
    sim_arm();
}

/* Suspends c until `at` (sim) or a fired press (not sim); 0 when every slot is taken. */
static int wait_for(struct MHD_Connection *c, struct req *r, double at, int sim) {
    for (int i = 0; i < MAX_WAITERS; i++)
        if (!waiters[i].live) {
            waiters[i] = (struct waiter){c, at, 1, sim};
            r->woken = 1; /* the next call after the resume answers */
            MHD_suspend_connection(c);
            return 1;
        }
    return 0;
}

/* POST /sim/press?presses=N&gap=S: as the body's AgentHTTP.simPress, answered
 * once the last release's 10 ms window is over. */
static enum MHD_Result sim_press(struct MHD_Connection *c, struct req *r) {
    if (r->woken) return answer(c, 200, "{\"pressed\":\"onair\"}", 19);
    const char *p = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "presses");
    const char *g = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "gap");
    int presses = p ? atoi(p) : 1;
    double gap = g ? atof(g) : 0.6;
    if (presses < 1 || presses > 10 || gap < 0.05 || gap > 10)
        return answer(c, 400, "{\"error\":\"presses must be 1 to 10 and gap 0.05 to 10 seconds\"}", 61);
    int free_slot = 0;
    for (int i = 0; i < MAX_WAITERS && !free_slot; i++) free_slot = !waiters[i].live;
    if (!free_slot) return answer(c, 503, "{\"error\":\"busy\"}", 16);  /* refused whole: no press made */
    double t = now(), start = t > sim_presses_end + 0.05 ? t : sim_presses_end + 0.05;
    double held = gap / 2 < 0.2 ? gap / 2 : 0.2;
    sim_presses_end = start + (presses - 1) * gap + held;
    for (int i = 0; i < presses; i++) {
        sim_set(1, start + i * gap);
        sim_set(0, start + i * gap + held);
    }
    wait_for(c, r, sim_presses_end + 0.010, 1);  /* a slot is free: looked for above */
    return MHD_YES;
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
    if (!strcmp(url, "/metrics")) return metrics(c);
    if (!strcmp(url, "/sim/press") && !strcmp(method, "POST") && sim_fd >= 0) return sim_press(c, r);
    if (!strcmp(url, "/face") && !strcmp(method, "POST")) {
        asking_ends();
        const char *on = strstr(r->body, "\"on\"");
        if (!on) return status(c);  /* a push with no onair (the kill settled): the status */
        on = strchr(on + 4, ':');
        while (on && (*++on == ' ')) {}
        int value = on && !strncmp(on, "true", 4);
        if (value != lamp_on) { lamp_on = value; if (lamp) gpiod_line_set_value(lamp, value); }
        armed_at = -1;
        armed_set(0);
        return status(c);
    }
    if (!strcmp(url, "/ears")) {
        const char *a = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "after");
        const char *w = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "wait");
        uint64_t after = a ? strtoull(a, NULL, 10) : 0;
        double wait = w ? atof(w) : 0;
        if ((fired_item > after) || wait <= 0 || r->woken) return ears_answer(c, after);
        if (wait_for(c, r, now() + wait, 0)) return MHD_YES;
        return answer(c, 503, "{\"error\":\"busy\"}", 16);
    }
    return answer(c, 404, "{\"error\":\"no route\"}", 20);
}

static void completed_cb(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_RequestTerminationCode code) {
    (void)cls; (void)c; (void)code;
    free(*ctx); *ctx = NULL;
}

/* all_due_only: every waiter whose time has come; else every /ears waiter (a press fired). */
static void wake_waiters(int all_due_only) {
    double t = now();
    for (int i = 0; i < MAX_WAITERS; i++)
        if (waiters[i].live && (all_due_only ? waiters[i].deadline <= t : !waiters[i].sim)) {
            waiters[i].live = 0;
            MHD_resume_connection(waiters[i].c);
        }
}

/* The blink's timerfd: the next half period, or the end of the wait. */
static void blink(void) {
    uint64_t ticks;
    if (read(blink_fd, &ticks, sizeof ticks) < 0 || asking_since < 0) return;
    double t = now();
    if (t - asking_since >= 15) { asking_ends(); return; }
    while (blink_next <= t) blink_next += 0.125;
    armed_set(((int)((t - asking_since) / 0.125) % 2) == 0);
    arm_at(blink_fd, blink_next);
}

/* A confirmed press at `at`: the two-press. */
static void press(double at) {
    if (armed_at >= 0 && at - armed_at >= 5) armed_at = -1;
    if (armed_at < 0) { armed_at = at; armed_set(1); return; }
    if (at - armed_at < 0.4) return;
    armed_at = -1;
    fired_item = ++last_item;
    wake_waiters(0);
    asking_since = now();
    blink_next = asking_since + 0.125;
    armed_set(1);
    arm_at(blink_fd, blink_next);
}

/* A window ends with the line read `down`: a move from the contact's level is
 * a press or a release stamped at the first edge; no move is noise. */
static void settle(int down) {
    window_open = 0;
    if (down == contact_down) return;
    contact_down = down;
    if (down) press(window_first);
}

/* One edge on the onair button: its direction decides nothing (Contact.swift). */
static void edge(double at) {
    if (window_open) {
        if (at < window_end) return;          /* bounce */
        settle(0);                             /* read too late: the window ends at rest */
    }
    window_open = 1;
    window_first = at;
    window_end = at + 0.010;
    arm_at(confirm_fd, window_end);
}

/* The line's level now: the chip's, or the simulated line's last edge whose time has come. */
static int line_down(void) {
    if (button) return gpiod_line_get_value(button) == 1;
    double t = now();
    int down = sim_down;
    for (int i = 0; i < sim_count && sim_due[i].at <= t; i++) down = sim_due[i].down;
    return down;
}

static void sim_edges(void) {
    uint64_t ticks;
    if (read(sim_fd, &ticks, sizeof ticks) < 0) return;
    double t = now();
    int ready = 0;
    while (ready < sim_count && sim_due[ready].at <= t) ready++;
    struct sim_edge got[MAX_SIM_EDGES];
    memcpy(got, sim_due, ready * sizeof *got);
    memmove(sim_due, sim_due + ready, (sim_count - ready) * sizeof *sim_due);
    sim_count -= ready;
    sim_arm();
    for (int i = 0; i < ready; i++) { sim_down = got[i].down; edge(got[i].at); }
}

static volatile sig_atomic_t stop;
static void on_signal(int s) { (void)s; stop = 1; }

int main(int argc, char **argv) {
    const char *port = "8790", *token_file = NULL, *lamp_name = "GPIO17", *button_name = "GPIO23", *armed_name = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port")) port = argv[i + 1];
        else if (!strcmp(argv[i], "--token-file")) token_file = argv[i + 1];
        else if (!strcmp(argv[i], "--lamp")) lamp_name = argv[i + 1];
        else if (!strcmp(argv[i], "--button")) button_name = argv[i + 1];
        else if (!strcmp(argv[i], "--armed")) armed_name = argv[i + 1];
        else if (!strcmp(argv[i], "--status-bytes")) status_bytes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--metrics-bytes")) metrics_bytes = atoi(argv[i + 1]);
        else { fprintf(stderr, "reference: unknown option %s\n", argv[i]); return 2; }
    }
    FILE *f = token_file ? fopen(token_file, "r") : NULL;
    if (!f || !fgets(token, sizeof token, f)) { fprintf(stderr, "reference: no token file\n"); return 2; }
    fclose(f);
    token[strcspn(token, "\r\n")] = 0;
    token_len = strlen(token);

    /* --lamp none: no GPIO at all, a simulated button (bench/host-status.py, bench/alloc.py). */
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
        if (armed_name) {
            armed_led = gpiod_line_find(armed_name);
            if (!armed_led || gpiod_line_request_output(armed_led, "reference", 0) < 0) {
                fprintf(stderr, "reference: armed LED %s not found or busy\n", armed_name);
                return 1;
            }
        }
    } else {
        sim_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    }
    confirm_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    blink_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (confirm_fd < 0 || blink_fd < 0 || (!lines && sim_fd < 0)) { perror("reference: timerfd"); return 1; }

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
    ev.data.u32 = 2;
    epoll_ctl(ep, EPOLL_CTL_ADD, confirm_fd, &ev);
    ev.data.u32 = 3;
    if (sim_fd >= 0) epoll_ctl(ep, EPOLL_CTL_ADD, sim_fd, &ev);
    ev.data.u32 = 4;
    epoll_ctl(ep, EPOLL_CTL_ADD, blink_fd, &ev);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    fprintf(stderr, "reference: listening on %s\n", port);

    while (!stop) {
        /* The nearest of MHD's own timeout and the waiters' deadlines (/ears, /sim/press). */
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
            } else if (got[i].data.u32 == 3) {
                sim_edges();
            } else if (got[i].data.u32 == 4) {
                blink();
            }
        /* After the edges: a window an edge just opened is not due yet. */
        for (int i = 0; i < n; i++)
            if (got[i].data.u32 == 2) {
                uint64_t ticks;
                if (read(confirm_fd, &ticks, sizeof ticks) > 0 && window_open && now() >= window_end) settle(line_down());
            }
        wake_waiters(1);
        MHD_run(d);
    }
    MHD_stop_daemon(d);
    if (lines) {
        gpiod_line_release(lamp);
        gpiod_line_release(button);
        if (armed_led) gpiod_line_release(armed_led);
    }
    return 0;
}
