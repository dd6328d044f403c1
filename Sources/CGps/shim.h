// libgps 3.22 for Swift: static inline wrappers for what Swift cannot call or
// read directly (variadic-free but macro flags, unions, fixed char arrays).
#ifndef CGPS_SHIM_H
#define CGPS_SHIM_H

#include <gps.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/// A zeroed session record on the heap; gps_data_t is large and holds a union.
static inline struct gps_data_t *cgps_alloc(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}

static inline void cgps_free(struct gps_data_t *d) { free(d); }

/// 0, or libgps's negative netlib code (words from cgps_errstr), or errno.
static inline int cgps_open(const char *host, const char *port, struct gps_data_t *d) {
    errno = 0;
    if (gps_open(host, port, d) == 0) return 0;
    return errno != 0 ? errno : -1;
}

static inline const char *cgps_errstr(int code) {
    return code < 0 ? gps_errstr(code) : strerror(code);
}

/// ?WATCH={"enable":true,"json":true}: 0, or errno.
static inline int cgps_watch(struct gps_data_t *d) {
    errno = 0;
    if (gps_stream(d, WATCH_ENABLE | WATCH_JSON, NULL) == 0) return 0;
    return errno != 0 ? errno : EIO;
}

static inline int cgps_fd(const struct gps_data_t *d) { return (int)d->gps_fd; }

/// libgps reads with recv(); non-blocking lets a torn line wait for the next wake.
static inline int cgps_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return errno;
    return 0;
}

/// 1 when the peer has closed the connection, 0 when not (or unknown).
static inline int cgps_peer_closed(int fd) {
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 ? 1 : 0;
}

/// >0 a line was parsed (its text in `message`), 0 no whole line yet, -1 error or end.
static inline int cgps_read(struct gps_data_t *d, char *message, int length) {
    errno = 0;
    return gps_read(d, message, length);
}

static inline int cgps_errno(void) { return errno; }

static inline int cgps_close(struct gps_data_t *d) { return gps_close(d); }

// The fix of the last TPV. NaN means "not reported".
static inline gps_mask_t cgps_set(const struct gps_data_t *d) { return d->set; }
static inline int cgps_mode(const struct gps_data_t *d) { return d->fix.mode; }
static inline double cgps_time(const struct gps_data_t *d) {
    if (d->fix.time.tv_sec == 0 && d->fix.time.tv_nsec == 0) return NAN;
    return (double)d->fix.time.tv_sec + (double)d->fix.time.tv_nsec / 1e9;
}
static inline double cgps_latitude(const struct gps_data_t *d) { return d->fix.latitude; }
static inline double cgps_longitude(const struct gps_data_t *d) { return d->fix.longitude; }
static inline double cgps_alt_hae(const struct gps_data_t *d) { return d->fix.altHAE; }
static inline double cgps_alt_msl(const struct gps_data_t *d) { return d->fix.altMSL; }
static inline double cgps_eph(const struct gps_data_t *d) { return d->fix.eph; }
static inline double cgps_epx(const struct gps_data_t *d) { return d->fix.epx; }
static inline double cgps_epy(const struct gps_data_t *d) { return d->fix.epy; }
static inline double cgps_track(const struct gps_data_t *d) { return d->fix.track; }
static inline double cgps_speed(const struct gps_data_t *d) { return d->fix.speed; }

// The receiver of the last TPV or DEVICE message.
static inline const char *cgps_dev_path(const struct gps_data_t *d) { return d->dev.path; }
static inline const char *cgps_dev_driver(const struct gps_data_t *d) { return d->dev.driver; }
/// A receiver's cycle in seconds. libgps 3.22 parses "cycle" as a double into
/// the timespec's first 8 bytes; no cycle is a day long, so such bits are read back as the double.
static inline double cgps_cycle(const timespec_t *c) {
    if (c->tv_sec > 86400 || c->tv_sec < 0) {
        double d;
        memcpy(&d, &c->tv_sec, sizeof d);
        return d;
    }
    return (double)c->tv_sec + (double)c->tv_nsec / 1e9;
}

static inline double cgps_dev_cycle(const struct gps_data_t *d) { return cgps_cycle(&d->dev.cycle); }
static inline int cgps_dev_active(const struct gps_data_t *d) {
    return d->dev.activated.tv_sec != 0 || d->dev.activated.tv_nsec != 0;
}

// The DEVICES list.
static inline int cgps_devices_count(const struct gps_data_t *d) { return d->devices.ndevices; }
static inline const char *cgps_devices_path(const struct gps_data_t *d, int i) {
    return d->devices.list[i].path;
}
static inline const char *cgps_devices_driver(const struct gps_data_t *d, int i) {
    return d->devices.list[i].driver;
}
static inline double cgps_devices_cycle(const struct gps_data_t *d, int i) {
    return cgps_cycle(&d->devices.list[i].cycle);
}

#endif
