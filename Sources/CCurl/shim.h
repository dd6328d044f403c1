// libcurl for BodyHub. curl_easy_setopt and curl_easy_getinfo are variadic,
// which Swift cannot call, so each argument type gets a typed wrapper here.
#include <curl/curl.h>

typedef size_t (*body_curl_write_fn)(char *data, size_t size, size_t count, void *context);

static inline CURLcode body_curl_set_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode body_curl_set_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode body_curl_set_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode body_curl_set_headers(CURL *easy, struct curl_slist *headers) {
    return curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
}

// Copies the bytes, so the caller's buffer need not outlive the call; an
// empty body is still a POST.
static inline CURLcode body_curl_set_post(CURL *easy, const void *bytes, long count) {
    CURLcode code = curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, count);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(easy, CURLOPT_COPYPOSTFIELDS, (count == 0 || bytes == NULL) ? "" : bytes);
}

static inline CURLcode body_curl_set_writer(CURL *easy, body_curl_write_fn writer, void *context) {
    CURLcode code = curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, writer);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(easy, CURLOPT_WRITEDATA, context);
}

static inline CURLcode body_curl_response_code(CURL *easy, long *status) {
    return curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, status);
}
