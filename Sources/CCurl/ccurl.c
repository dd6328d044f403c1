#include "ccurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// Debian's libcurl4 (OpenSSL); the soname, not the -dev package's libcurl.so.
#define LIBCURL "libcurl.so.4"

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLcode (*easy_send)(CURL *, const void *, size_t, size_t *);
    CURLcode (*easy_recv)(CURL *, void *, size_t, size_t *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} curl;

// Held while loading; a load that failed is tried again at the next call (the
// hello backs off, so about once a minute), so installing libcurl4 later helps.
static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;
static int loaded;
static char failed[256];

static int resolve(void *library, const char *name, void **slot) {
    *slot = dlsym(library, name);
    if (*slot) return 0;
    snprintf(failed, sizeof failed, "%s has no %s", LIBCURL, name);
    return -1;
}

// 0 when libcurl is loaded and started; -1 with the reason in `failed`.
static int load(void) {
    void *library = dlopen(LIBCURL, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *error = dlerror();
        snprintf(failed, sizeof failed, "%s", error ? error : "cannot load " LIBCURL);
        return -1;
    }
    if (resolve(library, "curl_global_init", (void **)&curl.global_init)
        || resolve(library, "curl_easy_init", (void **)&curl.easy_init)
        || resolve(library, "curl_easy_cleanup", (void **)&curl.easy_cleanup)
        || resolve(library, "curl_easy_perform", (void **)&curl.easy_perform)
        || resolve(library, "curl_easy_strerror", (void **)&curl.easy_strerror)
        || resolve(library, "curl_easy_setopt", (void **)&curl.easy_setopt)
        || resolve(library, "curl_easy_getinfo", (void **)&curl.easy_getinfo)
        || resolve(library, "curl_easy_send", (void **)&curl.easy_send)
        || resolve(library, "curl_easy_recv", (void **)&curl.easy_recv)
        || resolve(library, "curl_slist_append", (void **)&curl.slist_append)
        || resolve(library, "curl_slist_free_all", (void **)&curl.slist_free_all)) {
        dlclose(library);
        return -1;
    }
    CURLcode code = curl.global_init(CURL_GLOBAL_ALL);
    if (code != CURLE_OK) {
        snprintf(failed, sizeof failed, "curl_global_init: %s", curl.easy_strerror(code));
        dlclose(library);
        return -1;
    }
    return 0;
}

int body_curl_load(char *why, size_t size) {
    pthread_mutex_lock(&loading);
    if (!loaded) loaded = load() == 0;
    int ok = loaded;
    if (!ok && why && size) snprintf(why, size, "%s", failed);
    pthread_mutex_unlock(&loading);
    return ok ? 0 : -1;
}

// Below: only after body_curl_load returned 0.
CURL *body_curl_easy_init(void) { return curl.easy_init(); }
void body_curl_easy_cleanup(CURL *easy) { curl.easy_cleanup(easy); }
CURLcode body_curl_easy_perform(CURL *easy) { return curl.easy_perform(easy); }
const char *body_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }
struct curl_slist *body_curl_slist_append(struct curl_slist *list, const char *line) { return curl.slist_append(list, line); }
void body_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLcode body_curl_set_long(CURL *easy, CURLoption option, long value) {
    return curl.easy_setopt(easy, option, value);
}

CURLcode body_curl_set_string(CURL *easy, CURLoption option, const char *value) {
    return curl.easy_setopt(easy, option, value);
}

CURLcode body_curl_set_headers(CURL *easy, struct curl_slist *headers) {
    return curl.easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
}

CURLcode body_curl_set_post(CURL *easy, const void *bytes, long count) {
    CURLcode code = curl.easy_setopt(easy, CURLOPT_POSTFIELDSIZE, count);
    if (code != CURLE_OK) return code;
    return curl.easy_setopt(easy, CURLOPT_COPYPOSTFIELDS, (count == 0 || bytes == NULL) ? "" : bytes);
}

CURLcode body_curl_set_writer(CURL *easy, body_curl_write_fn writer, void *context) {
    CURLcode code = curl.easy_setopt(easy, CURLOPT_WRITEFUNCTION, writer);
    if (code != CURLE_OK) return code;
    return curl.easy_setopt(easy, CURLOPT_WRITEDATA, context);
}

CURLcode body_curl_response_code(CURL *easy, long *status) {
    return curl.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, status);
}

CURLcode body_curl_content_type(CURL *easy, char **type) {
    return curl.easy_getinfo(easy, CURLINFO_CONTENT_TYPE, type);
}

CURLcode body_curl_new_connections(CURL *easy, long *count) {
    return curl.easy_getinfo(easy, CURLINFO_NUM_CONNECTS, count);
}

CURLcode body_curl_easy_send(CURL *easy, const void *bytes, size_t count, size_t *sent) {
    return curl.easy_send(easy, bytes, count, sent);
}

CURLcode body_curl_easy_recv(CURL *easy, void *bytes, size_t count, size_t *got) {
    return curl.easy_recv(easy, bytes, count, got);
}
