/* An allocation counter to LD_PRELOAD (issue 21): counts every call of
 * malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc,
 * pvalloc and free in every thread of the process, and hands each call on to
 * glibc's own (__libc_*), so nothing else changes.
 *
 * The counts live in a file the reader maps too (ALLOC_COUNT_FILE, made and
 * sized here): the reader takes them whenever it likes, with no signal and no
 * system call in the counted process, and subtracts two readings; the process
 * never resets anything. The layout is struct counts below, little-endian
 * uint64s in this order (bench/alloc.py reads it).
 *
 * cc -O2 -shared -fPIC -o alloc-count.so bench/alloc-count.c
 * ALLOC_COUNT_FILE=/tmp/x LD_PRELOAD=./alloc-count.so PROGRAM ...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);
extern void __libc_free(void *);

struct counts {
    uint64_t malloc, calloc, realloc, memalign, free, bytes;
};

/* Calls before the constructor maps the file (the loader's, libc's start)
 * count here and are copied over. */
static struct counts early;
static struct counts *c = &early;

#define COUNT(field, n) __atomic_fetch_add(&c->field, (n), __ATOMIC_RELAXED)

__attribute__((constructor)) static void map_counts(void) {
    const char *path = getenv("ALLOC_COUNT_FILE");
    if (!path || !*path) return;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (ftruncate(fd, 4096) == 0) {
        void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED) {
            struct counts *shared = m;
            *shared = early;
            c = shared;
        }
    }
    close(fd);
}

void *malloc(size_t n) {
    COUNT(malloc, 1);
    COUNT(bytes, n);
    return __libc_malloc(n);
}

void *calloc(size_t k, size_t n) {
    COUNT(calloc, 1);
    COUNT(bytes, k * n);
    return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n) {
    COUNT(realloc, 1);
    COUNT(bytes, n);
    return __libc_realloc(p, n);
}

void free(void *p) {
    if (p) COUNT(free, 1);
    __libc_free(p);
}

static int power_of_two(size_t a) { return a && !(a & (a - 1)); }

int posix_memalign(void **out, size_t align, size_t n) {
    if (!power_of_two(align) || align % sizeof(void *)) return EINVAL;
    COUNT(memalign, 1);
    COUNT(bytes, n);
    void *p = __libc_memalign(align, n);
    if (!p && n) return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n) {
    COUNT(memalign, 1);
    COUNT(bytes, n);
    return __libc_memalign(align, n);
}

void *memalign(size_t align, size_t n) {
    COUNT(memalign, 1);
    COUNT(bytes, n);
    return __libc_memalign(align, n);
}

void *valloc(size_t n) {
    COUNT(memalign, 1);
    COUNT(bytes, n);
    return __libc_valloc(n);
}

void *pvalloc(size_t n) {
    COUNT(memalign, 1);
    COUNT(bytes, n);
    return __libc_pvalloc(n);
}
