// What both API layers share: non-blocking descriptors and name search.
#include "common.h"
#include <fcntl.h>
#include <string.h>

int sb_gpio_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int sb_gpio_same_name(const char *line_name, const char *name) {
    return line_name != NULL && strcmp(line_name, name) == 0;
}
