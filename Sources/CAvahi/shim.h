// avahi-client 0.8 for Swift: static inline wrappers for what Swift cannot
// call (the variadic TXT list) and a few enum values as plain ints.
#ifndef CAVAHI_SHIM_H
#define CAVAHI_SHIM_H

#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/simple-watch.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>
#include <avahi-common/watch.h>
#include <stddef.h>
#include <stdint.h>

/// Adds one service on every interface and protocol, in the default domain,
/// on this host, with `count` TXT strings. 0, or a negative AVAHI_ERR_*.
/// The C function `avahi_entry_group_add_service` is variadic; this builds the list instead.
static inline int cavahi_add_service(AvahiEntryGroup *group, const char *name, const char *type,
                                     uint16_t port, const char *const *txt, int count) {
    AvahiStringList *list = NULL;
    // avahi_string_list_add prepends: backwards, so the records keep their order.
    for (int i = count - 1; i >= 0; i--) {
        AvahiStringList *more = avahi_string_list_add(list, txt[i]);
        if (!more) { avahi_string_list_free(list); return AVAHI_ERR_NO_MEMORY; }
        list = more;
    }
    int rc = avahi_entry_group_add_service_strlst(group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, 0,
                                                  name, type, NULL, NULL, port, list);
    avahi_string_list_free(list);
    return rc;
}

/// Arms `*timeout` (made on first use) to fire once after `msec` on the poll's thread.
/// 0, or -1 when no timeout could be made. Through the AvahiPoll struct's function pointers.
static inline int cavahi_timeout_arm(const AvahiPoll *api, AvahiTimeout **timeout, unsigned msec,
                                     AvahiTimeoutCallback callback, void *userdata) {
    struct timeval tv;
    avahi_elapse_time(&tv, msec, 0);
    if (*timeout) { api->timeout_update(*timeout, &tv); return 0; }
    *timeout = api->timeout_new(api, &tv, callback, userdata);
    return *timeout ? 0 : -1;
}

static inline void cavahi_timeout_free(const AvahiPoll *api, AvahiTimeout **timeout) {
    if (*timeout) api->timeout_free(*timeout);
    *timeout = NULL;
}

static inline int cavahi_flag_no_fail(void) { return AVAHI_CLIENT_NO_FAIL; }
static inline int cavahi_err_disconnected(void) { return AVAHI_ERR_DISCONNECTED; }
static inline int cavahi_err_collision(void) { return AVAHI_ERR_COLLISION; }

#endif
