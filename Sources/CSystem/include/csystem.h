// Linux calls the Glibc module does not bring in: epoll, timerfd, eventfd, signalfd, malloc_trim, adjtimex.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <malloc.h>
#include <sys/timex.h>
