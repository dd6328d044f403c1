#ifndef STUDIO_BODY_CGPIOD_COMMON_H
#define STUDIO_BODY_CGPIOD_COMMON_H
#define SB_CONSUMER_MAX 32
int sb_gpio_nonblocking(int fd);
int sb_gpio_same_name(const char *line_name, const char *name);
#endif
