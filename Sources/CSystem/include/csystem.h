// Linux calls the Glibc module does not bring in: epoll, timerfd, eventfd, signalfd, malloc_trim, adjtimex, the spawn action closefrom.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <malloc.h>
#include <sys/timex.h>
#include <spawn.h>

// glibc 2.34's "close every descriptor from this one on" spawn action: spawn.h
// declares it only for _GNU_SOURCE, which the Glibc module is not built with.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
