// The neutral API over libgpiod 1.x (Debian 12, Raspberry Pi OS Bookworm).
#include "select.h"
#if SB_GPIOD_API == 1
#include "cgpiod.h"
#include "common.h"
#include <errno.h>
#include <stdlib.h>

struct sb_gpio_chip { struct gpiod_chip *chip; };

// v1 ties a line to its chip handle: closing the chip releases the line,
// so the request keeps its own chip open.
struct sb_gpio_request {
    struct gpiod_chip *chip;
    struct gpiod_line *line;
    int fd;
};

int sb_gpio_api(void) { return 1; }
const char *sb_gpio_library_version(void) { return gpiod_version_string(); }
int sb_gpio_has_seqno(void) { return 0; }

sb_gpio_chip *sb_gpio_chip_open(const char *path) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return NULL;
    sb_gpio_chip *c = malloc(sizeof *c);
    if (!c) { gpiod_chip_close(chip); errno = ENOMEM; return NULL; }
    c->chip = chip;
    return c;
}

void sb_gpio_chip_close(sb_gpio_chip *c) {
    if (!c) return;
    gpiod_chip_close(c->chip);
    free(c);
}

const char *sb_gpio_chip_name(sb_gpio_chip *c) { return gpiod_chip_name(c->chip); }
const char *sb_gpio_chip_label(sb_gpio_chip *c) { return gpiod_chip_label(c->chip); }
unsigned int sb_gpio_chip_num_lines(sb_gpio_chip *c) { return gpiod_chip_num_lines(c->chip); }

int sb_gpio_find_line(sb_gpio_chip *c, const char *name, unsigned int *offsets, unsigned int max) {
    unsigned int n = gpiod_chip_num_lines(c->chip);
    int found = 0;
    for (unsigned int i = 0; i < n; i++) {
        struct gpiod_line *line = gpiod_chip_get_line(c->chip, i);
        if (!line) return -1;
        if (sb_gpio_same_name(gpiod_line_name(line), name)) {
            if ((unsigned int)found < max) offsets[found] = i;
            found++;
        }
    }
    return found;
}

static int bias_flags(int bias) {
    switch (bias) {
    case SB_GPIO_BIAS_PULL_UP: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    case SB_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    case SB_GPIO_BIAS_DISABLED: return GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    default: return 0;
    }
}

static sb_gpio_request *open_line(const char *chip_path, unsigned int offset) {
    sb_gpio_request *r = calloc(1, sizeof *r);
    if (!r) { errno = ENOMEM; return NULL; }
    r->fd = -1;
    r->chip = gpiod_chip_open(chip_path);
    if (!r->chip) { free(r); return NULL; }
    r->line = gpiod_chip_get_line(r->chip, offset);
    if (!r->line) { int e = errno; sb_gpio_release(r); errno = e; return NULL; }
    return r;
}

sb_gpio_request *sb_gpio_request_output(const char *chip_path, unsigned int offset,
                                        const char *consumer, int active_low, int value) {
    sb_gpio_request *r = open_line(chip_path, offset);
    if (!r) return NULL;
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    if (gpiod_line_request_output_flags(r->line, consumer, flags, value ? 1 : 0) < 0) {
        int e = errno; sb_gpio_release(r); errno = e; return NULL;
    }
    return r;
}

sb_gpio_request *sb_gpio_request_input_edges(const char *chip_path, unsigned int offset,
                                             const char *consumer, int active_low, int bias) {
    sb_gpio_request *r = open_line(chip_path, offset);
    if (!r) return NULL;
    int flags = bias_flags(bias) | (active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0);
    if (gpiod_line_request_both_edges_events_flags(r->line, consumer, flags) < 0) {
        int e = errno; sb_gpio_release(r); errno = e; return NULL;
    }
    r->fd = gpiod_line_event_get_fd(r->line);
    if (r->fd < 0 || sb_gpio_nonblocking(r->fd) < 0) {
        int e = errno; sb_gpio_release(r); errno = e; return NULL;
    }
    return r;
}

int sb_gpio_fd(sb_gpio_request *r) { return r->fd; }
int sb_gpio_set(sb_gpio_request *r, int value) { return gpiod_line_set_value(r->line, value ? 1 : 0); }
int sb_gpio_get(sb_gpio_request *r) { return gpiod_line_get_value(r->line); }

int sb_gpio_read_edge_events(sb_gpio_request *r, sb_gpio_edge *out, unsigned int max) {
    struct gpiod_line_event events[16];
    if (max > 16) max = 16;
    int n = gpiod_line_event_read_multiple(r->line, events, max);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    for (int i = 0; i < n; i++) {
        out[i].timestamp_ns = (uint64_t)events[i].ts.tv_sec * 1000000000u + (uint64_t)events[i].ts.tv_nsec;
        out[i].active = events[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
        out[i].line_seqno = 0;
    }
    return n;
}

void sb_gpio_release(sb_gpio_request *r) {
    if (!r) return;
    // Closing the chip releases its requested lines (and their descriptors).
    if (r->chip) gpiod_chip_close(r->chip);
    free(r);
}
#endif
