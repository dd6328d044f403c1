// Small wrappers for the parts of libmicrohttpd Swift cannot call directly:
// the variadic start and info functions, the va_list logger, and unions.
#ifndef BODY_CMICROHTTPD_SHIM_H
#define BODY_CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/epoll.h>   // the server nests MHD's epoll fd with its own wake-up eventfd
#include <sys/eventfd.h>
#include <microhttpd.h>

/// Where MHD's error log goes: one formatted message at a time.
typedef void (*body_mhd_log_fn)(void *context, const char *message);

struct body_mhd_log {
    body_mhd_log_fn fn;
    void *context;
};

/// Formats MHD's printf-style message and hands the text on.
static inline void body_mhd_log_trampoline(void *cls, const char *fmt, va_list ap) {
    struct body_mhd_log *log = (struct body_mhd_log *)cls;
    char text[512];
    vsnprintf(text, sizeof text, fmt, ap);
    if (log != NULL && log->fn != NULL) log->fn(log->context, text);
}

/// MHD_start_daemon with the options the body uses, without varargs. With
/// `https_key` and `https_cert` (PEM, NUL-terminated, kept alive by the caller
/// until the daemon stops) it serves TLS through GnuTLS: MHD_USE_TLS.
static inline struct MHD_Daemon *body_mhd_start(
    unsigned int flags,
    uint16_t port,
    const struct sockaddr *address,
    MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context,
    MHD_NotifyConnectionCallback connection_notify, void *connection_context,
    struct body_mhd_log *log,
    unsigned int connection_timeout,
    unsigned int connection_limit,
    unsigned int per_ip_limit,
    size_t memory_limit,
    const char *https_key,
    const char *https_cert,
    const char *https_priorities) {
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)https_key},
        {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)https_cert},
        // GnuTLS parses it here, in MHD_start_daemon: it need not outlive the call.
        {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)https_priorities},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_OptionItem plain[] = {{MHD_OPTION_END, 0, NULL}};
    int https = https_key != NULL && https_cert != NULL;
    return MHD_start_daemon(
        flags | (https ? MHD_USE_TLS : 0), port, NULL, NULL, handler, handler_context,
        // First, so MHD's own complaints about later options reach our log too.
        MHD_OPTION_EXTERNAL_LOGGER, body_mhd_log_trampoline, (void *)log,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_NOTIFY_CONNECTION, connection_notify, connection_context,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_ARRAY, https ? tls : plain,
        MHD_OPTION_END);
}

/// Writes the JSON body that replaces one of libmicrohttpd's own HTML pages
/// (its `size` bytes at `page`) into `out`, and returns its length: 0 (or
/// more than `capacity`) keeps the page. See pages.c.
typedef size_t (*body_mhd_page_fn)(const char *page, size_t size, char *out, size_t capacity);

/// Sets the rewriter every later error page of MHD's goes through.
void body_mhd_rewrite_pages(body_mhd_page_fn rewrite);

/// The epoll descriptor MHD waits on, or -1.
static inline int body_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

/// The port the listening socket is bound to, or 0.
static inline uint16_t body_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// Milliseconds until MHD wants MHD_run again; -1 when only readiness matters.
static inline long long body_mhd_timeout_ms(struct MHD_Daemon *daemon) {
    MHD_UNSIGNED_LONG_LONG ms = 0;
    if (MHD_get_timeout(daemon, &ms) != MHD_YES) return -1;
    return ms > (MHD_UNSIGNED_LONG_LONG)INT64_MAX ? INT64_MAX : (long long)ms;
}

/// The connection's socket, or -1.
static inline int body_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The client's address as text ("127.0.0.1", "::1"), or "" when unknown.
static inline void body_mhd_client_address(struct MHD_Connection *connection, char *out, size_t size) {
    out[0] = '\0';
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET && size >= 16) {
        // What inet_ntop writes, without its sprintf: this runs at every request.
        const unsigned char *b = (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr;
        size_t n = 0;
        for (int i = 0; i < 4; i++) {
            if (i > 0) out[n++] = '.';
            if (b[i] >= 100) out[n++] = (char)('0' + b[i] / 100);
            if (b[i] >= 10) out[n++] = (char)('0' + b[i] / 10 % 10);
            out[n++] = (char)('0' + b[i] % 10);
        }
        out[n] = '\0';
    } else if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)size);
    } else if (sa->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)size);
    }
}

#endif
