// One version-neutral GPIO API over libgpiod. Exactly one of cgpiod_v1.c
// (libgpiod 1.x) and cgpiod_v2.c (2.x) compiles to code, chosen from the
// gpiod.h the build finds; nothing above this header sees which.
//
// Every function that can fail returns -1 (or NULL) with errno set.
#ifndef STUDIO_BODY_CGPIOD_H
#define STUDIO_BODY_CGPIOD_H

#include <stddef.h>
#include <stdint.h>

/// An open GPIO chip, for finding lines by name.
typedef struct sb_gpio_chip sb_gpio_chip;
/// One requested line; owns everything libgpiod allocated for it.
typedef struct sb_gpio_request sb_gpio_request;

enum sb_gpio_bias {
    SB_GPIO_BIAS_AS_IS = 0,
    SB_GPIO_BIAS_PULL_UP = 1,
    SB_GPIO_BIAS_PULL_DOWN = 2,
    SB_GPIO_BIAS_DISABLED = 3,
};

/// One edge as the kernel reported it. `active` is 1 when the line went
/// active (active-low honoured), 0 when it went inactive. `line_seqno` is
/// the kernel's per-line sequence number, 0 where the API has none (v1).
typedef struct sb_gpio_edge {
    uint64_t timestamp_ns;
    int active;
    unsigned long line_seqno;
} sb_gpio_edge;

/// 1 or 2: the libgpiod API this build compiled against.
int sb_gpio_api(void);
/// The library's own version string, e.g. "1.6.3" or "2.1.3".
const char *sb_gpio_library_version(void);
/// 1 when edges carry sequence numbers (API 2).
int sb_gpio_has_seqno(void);

sb_gpio_chip *sb_gpio_chip_open(const char *path);
/// Safe with NULL.
void sb_gpio_chip_close(sb_gpio_chip *chip);
/// The chip's name, e.g. "gpiochip0"; valid while the chip is open.
const char *sb_gpio_chip_name(sb_gpio_chip *chip);
const char *sb_gpio_chip_label(sb_gpio_chip *chip);
unsigned int sb_gpio_chip_num_lines(sb_gpio_chip *chip);
/// Writes up to `max` offsets of lines called `name` on this chip; returns
/// how many there are (which may exceed `max`), or -1.
int sb_gpio_find_line(sb_gpio_chip *chip, const char *name, unsigned int *offsets, unsigned int max);

/// Requests one output line driven to `value` (logical: 1 = active).
sb_gpio_request *sb_gpio_request_output(const char *chip_path, unsigned int offset,
                                        const char *consumer, int active_low, int value);
/// Requests one input line with both edges, CLOCK_MONOTONIC timestamps and
/// `bias`, and no kernel debounce on either API: the kernel's debounce
/// reports an edge only once the line has been stable for the whole period,
/// so every press would count that much late (docs/decisions.md, GPIO). The
/// caller filters bounce on the leading edge.
sb_gpio_request *sb_gpio_request_input_edges(const char *chip_path, unsigned int offset,
                                             const char *consumer, int active_low, int bias);
/// The descriptor that is readable when edges wait (non-blocking).
int sb_gpio_fd(sb_gpio_request *req);
/// Logical value: 1 = active.
int sb_gpio_set(sb_gpio_request *req, int value);
/// Logical value, or -1.
int sb_gpio_get(sb_gpio_request *req);
/// Reads up to `max` waiting edges without blocking; 0 when none wait.
int sb_gpio_read_edge_events(sb_gpio_request *req, sb_gpio_edge *out, unsigned int max);
/// Releases the line and frees everything; safe with NULL.
void sb_gpio_release(sb_gpio_request *req);

/// An inotify descriptor (non-blocking) that turns readable when a node in
/// `dir` is deleted: a GPIO chip going away. Kernels before 6.x do not wake
/// a line request's descriptor when its chip is removed, so this is how an
/// epoll loop hears of it at once.
int sb_gpio_chip_watch(const char *dir);
/// Drains the watch: 1 if a gpiochip node went away (or events were lost),
/// 0 if not, -1 on error (EINTR included: the caller retries).
int sb_gpio_chip_watch_read(int fd);

#endif
