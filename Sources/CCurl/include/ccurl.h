// libcurl for BodyHub, loaded only when the body first calls Oriel
// (dlopen, as systemd loads its optional libraries): a body with no
// [oriel] url never maps libcurl and what it brings (OpenSSL, Kerberos, LDAP,
// libssh2), about 0.7 MB of private memory (docs/benchmarks.md), and a broken
// libcurl costs the hello, never the lamp or the buttons. curl.h is here for its types only: nothing
// links libcurl, so a direct curl_* call fails at link time; use body_curl_*.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call, so each argument type gets a typed wrapper.
#include <curl/curl.h>
#include <stddef.h>

typedef size_t (*body_curl_write_fn)(char *data, size_t size, size_t count, void *context);

// Loads libcurl.so.4 and runs curl_global_init, the first time it works;
// a failed load is tried again at the next call. 0 when ready; otherwise -1
// and the reason in `why`. Safe to call from any thread.
int body_curl_load(char *why, size_t size);

CURL *body_curl_easy_init(void);
void body_curl_easy_cleanup(CURL *easy);
CURLcode body_curl_easy_perform(CURL *easy);
const char *body_curl_easy_strerror(CURLcode code);
struct curl_slist *body_curl_slist_append(struct curl_slist *list, const char *line);
void body_curl_slist_free_all(struct curl_slist *list);

CURLcode body_curl_set_long(CURL *easy, CURLoption option, long value);
CURLcode body_curl_set_string(CURL *easy, CURLoption option, const char *value);
CURLcode body_curl_set_headers(CURL *easy, struct curl_slist *headers);
// Copies the bytes, so the caller's buffer need not outlive the call; an
// empty body is still a POST.
CURLcode body_curl_set_post(CURL *easy, const void *bytes, long count);
CURLcode body_curl_set_writer(CURL *easy, body_curl_write_fn writer, void *context);
CURLcode body_curl_response_code(CURL *easy, long *status);
// The answer's Content-Type, owned by the handle (valid until its next request), or NULL.
CURLcode body_curl_content_type(CURL *easy, char **type);
// How many connections the last transfer opened (0 when it reused a kept one).
CURLcode body_curl_new_connections(CURL *easy, long *count);
// Bytes on a connection made with CURLOPT_CONNECT_ONLY; CURLE_AGAIN when it would wait.
CURLcode body_curl_easy_send(CURL *easy, const void *bytes, size_t count, size_t *sent);
CURLcode body_curl_easy_recv(CURL *easy, void *bytes, size_t count, size_t *got);
