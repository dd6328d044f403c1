// The neutral API over libgpiod 2.x (Debian 13, Raspberry Pi OS Trixie;
// 2.1.3 in bookworm-backports).
#include "select.h"
#if SB_GPIOD_API == 2
#include "cgpiod.h"
#include "common.h"
#include <errno.h>
#include <stdlib.h>

struct sb_gpio_chip {
    struct gpiod_chip *chip;
    struct gpiod_chip_info *info;
};

// A v2 request lives on after its chip handle closes.
struct sb_gpio_request {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
    unsigned int offset;
    int fd;
};

int sb_gpio_api(void) { return 2; }
const char *sb_gpio_library_version(void) { return gpiod_api_version(); }
int sb_gpio_has_seqno(void) { return 1; }

sb_gpio_chip *sb_gpio_chip_open(const char *path) {
    sb_gpio_chip *c = calloc(1, sizeof *c);
    if (!c) { errno = ENOMEM; return NULL; }
    c->chip = gpiod_chip_open(path);
    if (c->chip) c->info = gpiod_chip_get_info(c->chip);
    if (!c->info) { int e = errno; sb_gpio_chip_close(c); errno = e; return NULL; }
    return c;
}

void sb_gpio_chip_close(sb_gpio_chip *c) {
    if (!c) return;
    if (c->info) gpiod_chip_info_free(c->info);
    if (c->chip) gpiod_chip_close(c->chip);
    free(c);
}

const char *sb_gpio_chip_name(sb_gpio_chip *c) { return gpiod_chip_info_get_name(c->info); }
const char *sb_gpio_chip_label(sb_gpio_chip *c) { return gpiod_chip_info_get_label(c->info); }
unsigned int sb_gpio_chip_num_lines(sb_gpio_chip *c) { return (unsigned int)gpiod_chip_info_get_num_lines(c->info); }

// Not gpiod_chip_get_line_offset_from_name: it stops at the first match,
// and a name on two lines must be reported.
int sb_gpio_find_line(sb_gpio_chip *c, const char *name, unsigned int *offsets, unsigned int max) {
    unsigned int n = sb_gpio_chip_num_lines(c);
    int found = 0;
    for (unsigned int i = 0; i < n; i++) {
        struct gpiod_line_info *info = gpiod_chip_get_line_info(c->chip, i);
        if (!info) return -1;
        if (sb_gpio_same_name(gpiod_line_info_get_name(info), name)) {
            if ((unsigned int)found < max) offsets[found] = i;
            found++;
        }
        gpiod_line_info_free(info);
    }
    return found;
}

static enum gpiod_line_bias bias_value(int bias) {
    switch (bias) {
    case SB_GPIO_BIAS_PULL_UP: return GPIOD_LINE_BIAS_PULL_UP;
    case SB_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_BIAS_PULL_DOWN;
    case SB_GPIO_BIAS_DISABLED: return GPIOD_LINE_BIAS_DISABLED;
    default: return GPIOD_LINE_BIAS_AS_IS;
    }
}

// Requests one line with `settings`; frees what it allocated on every path.
static struct gpiod_line_request *request_one(struct gpiod_chip *chip, unsigned int offset,
                                              const char *consumer,
                                              struct gpiod_line_settings *settings) {
    struct gpiod_line_request *request = NULL;
    struct gpiod_line_config *line_cfg = gpiod_line_config_new();
    struct gpiod_request_config *req_cfg = gpiod_request_config_new();
    if (line_cfg && req_cfg
        && gpiod_line_config_add_line_settings(line_cfg, &offset, 1, settings) == 0) {
        gpiod_request_config_set_consumer(req_cfg, consumer);
        request = gpiod_chip_request_lines(chip, req_cfg, line_cfg);
    }
    int e = errno;
    gpiod_request_config_free(req_cfg);
    gpiod_line_config_free(line_cfg);
    errno = e;
    return request;
}

sb_gpio_request *sb_gpio_request_output(const char *chip_path, unsigned int offset,
                                        const char *consumer, int active_low, int value) {
    sb_gpio_request *r = calloc(1, sizeof *r);
    if (!r) { errno = ENOMEM; return NULL; }
    r->offset = offset;
    r->fd = -1;
    struct gpiod_chip *chip = gpiod_chip_open(chip_path);
    struct gpiod_line_settings *s = gpiod_line_settings_new();
    if (chip && s
        && gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT) == 0
        && gpiod_line_settings_set_output_value(s, value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE) == 0) {
        gpiod_line_settings_set_active_low(s, active_low != 0);
        r->request = request_one(chip, offset, consumer, s);
    }
    int e = errno;
    gpiod_line_settings_free(s);
    if (chip) gpiod_chip_close(chip);
    if (!r->request) { free(r); errno = e; return NULL; }
    return r;
}

// No debounce period: the kernel's would delay every edge by it.
static int input_settings(struct gpiod_line_settings *s, int active_low, int bias) {
    gpiod_line_settings_set_active_low(s, active_low != 0);
    if (gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_INPUT) < 0) return -1;
    if (gpiod_line_settings_set_edge_detection(s, GPIOD_LINE_EDGE_BOTH) < 0) return -1;
    if (gpiod_line_settings_set_bias(s, bias_value(bias)) < 0) return -1;
    return gpiod_line_settings_set_event_clock(s, GPIOD_LINE_CLOCK_MONOTONIC);
}

sb_gpio_request *sb_gpio_request_input_edges(const char *chip_path, unsigned int offset,
                                             const char *consumer, int active_low, int bias) {
    sb_gpio_request *r = calloc(1, sizeof *r);
    if (!r) { errno = ENOMEM; return NULL; }
    r->offset = offset;
    r->fd = -1;
    struct gpiod_chip *chip = gpiod_chip_open(chip_path);
    struct gpiod_line_settings *s = gpiod_line_settings_new();
    if (chip && s && input_settings(s, active_low, bias) == 0)
        r->request = request_one(chip, offset, consumer, s);
    int e = errno;
    gpiod_line_settings_free(s);
    if (chip) gpiod_chip_close(chip);
    if (!r->request) { free(r); errno = e; return NULL; }
    r->buffer = gpiod_edge_event_buffer_new(16);
    r->fd = gpiod_line_request_get_fd(r->request);
    if (!r->buffer || r->fd < 0 || sb_gpio_nonblocking(r->fd) < 0) {
        e = r->buffer ? errno : ENOMEM;
        sb_gpio_release(r);
        errno = e;
        return NULL;
    }
    return r;
}

int sb_gpio_fd(sb_gpio_request *r) { return r->fd; }

int sb_gpio_set(sb_gpio_request *r, int value) {
    return gpiod_line_request_set_value(r->request, r->offset,
                                        value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

int sb_gpio_get(sb_gpio_request *r) {
    enum gpiod_line_value v = gpiod_line_request_get_value(r->request, r->offset);
    if (v == GPIOD_LINE_VALUE_ERROR) return -1;
    return v == GPIOD_LINE_VALUE_ACTIVE;
}

int sb_gpio_read_edge_events(sb_gpio_request *r, sb_gpio_edge *out, unsigned int max) {
    if (!r->buffer) { errno = EPERM; return -1; }
    if (max > 16) max = 16;
    int n = gpiod_line_request_read_edge_events(r->request, r->buffer, max);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    for (int i = 0; i < n; i++) {
        struct gpiod_edge_event *ev = gpiod_edge_event_buffer_get_event(r->buffer, (unsigned long)i);
        out[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(ev);
        out[i].active = gpiod_edge_event_get_event_type(ev) == GPIOD_EDGE_EVENT_RISING_EDGE;
        out[i].line_seqno = gpiod_edge_event_get_line_seqno(ev);
    }
    return n;
}

void sb_gpio_release(sb_gpio_request *r) {
    if (!r) return;
    if (r->request) gpiod_line_request_release(r->request);
    if (r->buffer) gpiod_edge_event_buffer_free(r->buffer);
    free(r);
}
#endif
