// libmicrohttpd 0.9.75 answers some refusals itself, before any callback of
// ours runs (a malformed request line, a head too big for its memory pool, a
// missing Host, a broken chunked body): compile-time HTML pages, each made
// by one call in transmit_error_response_len to MHD_create_response_from_buffer,
// which the library calls through its PLT. Defined here, in the program,
// that call comes to us first: a page of MHD's (it starts "<html><head><title>")
// is handed to the Swift rewriter, which gives DESIGN 4's {"error": "<words>"},
// and the real function (found with RTLD_NEXT) makes the response from that.
// Every other body passes through untouched. MHD offers no hook for these
// pages; this is the one place that knows about them.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>
#include "shim.h"

typedef struct MHD_Response *(*create_fn)(size_t, void *, enum MHD_ResponseMemoryMode);

static _Atomic(body_mhd_page_fn) rewriter = NULL;

void body_mhd_rewrite_pages(body_mhd_page_fn rewrite) { atomic_store(&rewriter, rewrite); }

static const char page_start[] = "<html><head><title>";

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buffer,
                                                     enum MHD_ResponseMemoryMode mode) {
    static _Atomic(create_fn) real = NULL;
    create_fn create = atomic_load(&real);
    if (create == NULL) {
        create = (create_fn)dlsym(RTLD_NEXT, "MHD_create_response_from_buffer");
        if (create == NULL) return NULL;
        atomic_store(&real, create);
    }
    body_mhd_page_fn rewrite = atomic_load(&rewriter);
    if (rewrite != NULL && buffer != NULL && size >= sizeof page_start - 1 &&
        memcmp(buffer, page_start, sizeof page_start - 1) == 0) {
        enum { capacity = 1024 };
        char *json = malloc(capacity);
        size_t length = json == NULL ? 0 : rewrite((const char *)buffer, size, json, capacity);
        if (length == 0 || length > capacity) {
            free(json);
        } else {
            struct MHD_Response *response = create(length, json, MHD_RESPMEM_MUST_FREE);
            if (response == NULL) { free(json); return NULL; }
            MHD_add_response_header(response, "Content-Type", "application/json");
            return response;
        }
    }
    return create(size, buffer, mode);
}
