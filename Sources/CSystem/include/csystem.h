// Linux calls the Glibc module does not bring in: epoll, timerfd, eventfd, signalfd.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <signal.h>
