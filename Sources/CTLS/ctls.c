// The body's key and certificate through GnuTLS (ctls.h says what each call does).
#include "ctls.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <gnutls/crypto.h>

static int fail(char *why, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return -1;
}

static int said(int code, const char *step, char *why, size_t size) {
    return fail(why, size, "%s: %s", step, gnutls_strerror(code));
}

static void hand_out(gnutls_datum_t *datum, struct body_tls_bytes *out) {
    out->data = datum->data;
    out->size = datum->size;
    datum->data = NULL;
    datum->size = 0;
}

void body_tls_free(struct body_tls_bytes *bytes) {
    if (bytes == NULL || bytes->data == NULL) return;
    gnutls_memset(bytes->data, 0, bytes->size);
    gnutls_free(bytes->data);
    bytes->data = NULL;
    bytes->size = 0;
}

int body_tls_make(const char *common_name,
                  const char *const *dns, size_t dns_count,
                  const char *const *ips, size_t ip_count,
                  struct body_tls_bytes *key_pem, struct body_tls_bytes *cert_pem,
                  char *why, size_t why_size) {
    gnutls_x509_privkey_t key = NULL;
    gnutls_x509_crt_t crt = NULL;
    gnutls_datum_t key_out = {NULL, 0}, cert_out = {NULL, 0};
    int result = -1, code;
    key_pem->data = cert_pem->data = NULL;
    key_pem->size = cert_pem->size = 0;

#define STEP(call, words) if ((code = (call)) < 0) { said(code, words, why, why_size); goto done; }
    STEP(gnutls_x509_privkey_init(&key), "cannot make a key");
    STEP(gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
                                      GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0),
         "cannot generate an ECDSA P-256 key");
    STEP(gnutls_x509_crt_init(&crt), "cannot make a certificate");
    STEP(gnutls_x509_crt_set_version(crt, 3), "cannot set the certificate's version");
    unsigned char serial[16];
    STEP(gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof serial), "cannot draw a serial number");
    serial[0] &= 0x7f;  // a positive INTEGER
    STEP(gnutls_x509_crt_set_serial(crt, serial, sizeof serial), "cannot set the serial number");
    // Fixed times, not the clock's: a Pi without a real-time clock may make its
    // certificate before it knows the date. The pin, not the dates, is what
    // Oriel trusts; RFC 5280 4.1.2.5 gives 99991231235959Z for "no end".
    STEP(gnutls_x509_crt_set_activation_time(crt, 946684800), "cannot set the start date");  // 2000-01-01
    STEP(gnutls_x509_crt_set_expiration_time(crt, (time_t)253402300799)  /* 9999-12-31T23:59:59Z */,
         "cannot set the end date");
    STEP(gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, common_name,
                                       (unsigned)strlen(common_name)),
         "cannot set the certificate's name");
    for (size_t i = 0; i < dns_count; i++) {
        STEP(gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, dns[i],
                                                  (unsigned)strlen(dns[i]), GNUTLS_FSAN_APPEND),
             "cannot add a name to the certificate");
    }
    for (size_t i = 0; i < ip_count; i++) {
        unsigned char raw[16];
        unsigned size;
        if (inet_pton(AF_INET, ips[i], raw) == 1) size = 4;
        else if (inet_pton(AF_INET6, ips[i], raw) == 1) size = 16;
        else { fail(why, why_size, "not an IP address: %s", ips[i]); goto done; }
        STEP(gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, raw, size, GNUTLS_FSAN_APPEND),
             "cannot add an address to the certificate");
    }
    STEP(gnutls_x509_crt_set_basic_constraints(crt, 0, -1), "cannot set the basic constraints");
    STEP(gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE), "cannot set the key usage");
    STEP(gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0), "cannot set the key purpose");
    STEP(gnutls_x509_crt_set_key(crt, key), "cannot put the key in the certificate");
    unsigned char id[32];
    size_t id_size = sizeof id;
    STEP(gnutls_x509_crt_get_key_id(crt, GNUTLS_KEYID_USE_SHA1, id, &id_size), "cannot compute the key's id");
    STEP(gnutls_x509_crt_set_subject_key_id(crt, id, id_size), "cannot set the key's id");
    STEP(gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0), "cannot sign the certificate");
    STEP(gnutls_x509_privkey_export2_pkcs8(key, GNUTLS_X509_FMT_PEM, NULL, GNUTLS_PKCS_PLAIN, &key_out),
         "cannot write the key");
    STEP(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &cert_out), "cannot write the certificate");
#undef STEP
    hand_out(&key_out, key_pem);
    hand_out(&cert_out, cert_pem);
    result = 0;
done:
    if (key_out.data != NULL) { gnutls_memset(key_out.data, 0, key_out.size); gnutls_free(key_out.data); }
    if (cert_out.data != NULL) gnutls_free(cert_out.data);
    if (crt != NULL) gnutls_x509_crt_deinit(crt);
    if (key != NULL) gnutls_x509_privkey_deinit(key);
    return result;
}

static int import_cert(gnutls_x509_crt_t *crt, const unsigned char *pem, size_t size, char *why, size_t why_size) {
    int code = gnutls_x509_crt_init(crt);
    if (code < 0) return said(code, "cannot make a certificate", why, why_size);
    gnutls_datum_t datum = {(unsigned char *)pem, (unsigned)size};
    code = gnutls_x509_crt_import(*crt, &datum, GNUTLS_X509_FMT_PEM);
    if (code < 0) {
        gnutls_x509_crt_deinit(*crt);
        *crt = NULL;
        return said(code, "the certificate cannot be read", why, why_size);
    }
    return 0;
}

int body_tls_check(const unsigned char *key_pem, size_t key_size,
                   const unsigned char *cert_pem, size_t cert_size,
                   unsigned char pin[32], char *why, size_t why_size) {
    gnutls_x509_crt_t crt = NULL;
    gnutls_x509_privkey_t key = NULL;
    int result = -1, code;
    if (import_cert(&crt, cert_pem, cert_size, why, why_size) != 0) return -1;
    if ((code = gnutls_x509_privkey_init(&key)) < 0) { said(code, "cannot make a key", why, why_size); goto done; }
    gnutls_datum_t datum = {(unsigned char *)key_pem, (unsigned)key_size};
    if ((code = gnutls_x509_privkey_import2(key, &datum, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0) {
        said(code, "the key cannot be read", why, why_size);
        goto done;
    }
    unsigned char cert_id[32], key_id[32];
    size_t cert_id_size = sizeof cert_id, key_id_size = sizeof key_id;
    if ((code = gnutls_x509_crt_get_key_id(crt, GNUTLS_KEYID_USE_SHA256, cert_id, &cert_id_size)) < 0 ||
        (code = gnutls_x509_privkey_get_key_id(key, GNUTLS_KEYID_USE_SHA256, key_id, &key_id_size)) < 0) {
        said(code, "cannot hash the public key", why, why_size);
        goto done;
    }
    if (cert_id_size != 32 || key_id_size != 32 || memcmp(cert_id, key_id, 32) != 0) {
        fail(why, why_size, "the key does not belong to the certificate");
        goto done;
    }
    memcpy(pin, cert_id, 32);
    result = 0;
done:
    if (key != NULL) gnutls_x509_privkey_deinit(key);
    gnutls_x509_crt_deinit(crt);
    return result;
}

int body_tls_names(const unsigned char *cert_pem, size_t cert_size,
                   char *out, size_t out_size, char *why, size_t why_size) {
    gnutls_x509_crt_t crt = NULL;
    if (import_cert(&crt, cert_pem, cert_size, why, why_size) != 0) return -1;
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0;; i++) {
        char name[256];
        size_t size = sizeof name;
        unsigned critical;
        int type = gnutls_x509_crt_get_subject_alt_name(crt, i, name, &size, &critical);
        if (type == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE) break;
        if (type < 0) continue;
        char text[INET6_ADDRSTRLEN] = "";
        const char *shown = text;
        if (type == GNUTLS_SAN_DNSNAME) shown = name;
        else if (type == GNUTLS_SAN_IPADDRESS && size == 4) inet_ntop(AF_INET, name, text, sizeof text);
        else if (type == GNUTLS_SAN_IPADDRESS && size == 16) inet_ntop(AF_INET6, name, text, sizeof text);
        else continue;
        int n = snprintf(out + used, out_size - used, "%s\n", shown);
        if (n < 0 || (size_t)n >= out_size - used) break;
        used += (size_t)n;
    }
    gnutls_x509_crt_deinit(crt);
    return 0;
}

int body_tls_local_addresses(char *out, size_t out_size, char *why, size_t why_size) {
    struct ifaddrs *list = NULL;
    if (getifaddrs(&list) != 0) return fail(why, why_size, "cannot list the network addresses (getifaddrs failed)");
    size_t used = 0;
    out[0] = '\0';
    for (struct ifaddrs *a = list; a != NULL; a = a->ifa_next) {
        if (a->ifa_addr == NULL || !(a->ifa_flags & IFF_UP)) continue;
        char text[INET6_ADDRSTRLEN];
        if (a->ifa_addr->sa_family == AF_INET) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, text, sizeof text);
        } else if (a->ifa_addr->sa_family == AF_INET6) {
            const struct in6_addr *six = &((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr;
            if (IN6_IS_ADDR_LINKLOCAL(six)) continue;  // needs a zone; no client names it in a URL
            inet_ntop(AF_INET6, six, text, sizeof text);
        } else {
            continue;
        }
        int n = snprintf(out + used, out_size - used, "%s\n", text);
        if (n < 0 || (size_t)n >= out_size - used) break;
        used += (size_t)n;
    }
    freeifaddrs(list);
    return 0;
}

// The files: made here, beside the calls that make what goes in them, with
// the mode set at creation (never a window where the key is readable by others).
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int body_tls_read_file(const char *path, struct body_tls_bytes *out, unsigned *mode, char *why, size_t why_size) {
    out->data = NULL;
    out->size = 0;
    int fd;
    do { fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW); } while (fd < 0 && errno == EINTR);
    if (fd < 0 && errno == ENOENT) return 1;
    if (fd < 0) return fail(why, why_size, "cannot read %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fail(why, why_size, "%s is not a regular file", path);
    }
    if (st.st_size > 65536) {
        close(fd);
        return fail(why, why_size, "%s is larger than 64 KiB: not a key or a certificate", path);
    }
    *mode = st.st_mode & 07777;
    unsigned char *data = gnutls_malloc((size_t)st.st_size + 1);
    if (data == NULL) { close(fd); return fail(why, why_size, "out of memory reading %s", path); }
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    data[got] = '\0';
    out->data = data;
    out->size = got;
    return 0;
}

int body_tls_write_file(const char *path, const unsigned char *data, size_t size, char *why, size_t why_size) {
    char temporary[4096];
    if ((size_t)snprintf(temporary, sizeof temporary, "%s.new", path) >= sizeof temporary) {
        return fail(why, why_size, "the path %s is too long", path);
    }
    unlink(temporary);
    int fd;
    do { fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600); } while (fd < 0 && errno == EINTR);
    if (fd < 0) return fail(why, why_size, "cannot write %s: %s", temporary, strerror(errno));
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int saved = errno;
            close(fd);
            unlink(temporary);
            return fail(why, why_size, "cannot write %s: %s", temporary, strerror(saved));
        }
        done += (size_t)n;
    }
    // fchmod too: a umask cannot widen 0600, but an odd filesystem may ignore the create mode.
    if (fchmod(fd, 0600) != 0 || fsync(fd) != 0) {
        int saved = errno;
        close(fd);
        unlink(temporary);
        return fail(why, why_size, "cannot write %s: %s", temporary, strerror(saved));
    }
    close(fd);
    if (rename(temporary, path) != 0) {
        int saved = errno;
        unlink(temporary);
        return fail(why, why_size, "cannot put %s in place: %s", path, strerror(saved));
    }
    return 0;
}

int body_tls_make_directory(const char *path, char *why, size_t why_size) {
    if (mkdir(path, 0700) == 0 || errno == EEXIST) return 0;
    return fail(why, why_size, "cannot make the directory %s: %s", path, strerror(errno));
}
