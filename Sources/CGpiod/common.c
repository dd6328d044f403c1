// What both API layers share: non-blocking descriptors, name search and the
// chip-removal watch (plain Linux calls, no libgpiod).
#include "common.h"
#include "cgpiod.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

int sb_gpio_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int sb_gpio_same_name(const char *line_name, const char *name) {
    return line_name != NULL && strcmp(line_name, name) == 0;
}

int sb_gpio_chip_watch(const char *dir) {
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) return -1;
    if (inotify_add_watch(fd, dir, IN_DELETE) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int sb_gpio_chip_watch_read(int fd) {
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int removed = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0) {
            // No EINTR loop here: -1 with EINTR goes back to Swift, whose
            // valueOrErrno drains again (the body's one rule). A removal seen
            // before the signal is answered now; what is left stays queued.
            if (errno == EINTR) return removed ? removed : -1;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return removed;
            return -1;
        }
        if (n == 0) return removed;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            if (ev->mask & IN_Q_OVERFLOW) removed = 1;
            if (ev->len > 0 && strncmp(ev->name, "gpiochip", 8) == 0) removed = 1;
            p += sizeof *ev + ev->len;
        }
    }
}
