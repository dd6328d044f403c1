// GnuTLS for the body's own key and certificate (BodyTLS): made once, read at
// every start, pinned by Oriel. Each call returns 0, or -1 with the reason in
// `why`. Memory handed out (`body_tls_bytes`) is freed with body_tls_free,
// which wipes it first: it may hold the private key.
#ifndef BODY_CTLS_H
#define BODY_CTLS_H

#include <stddef.h>
#include <stdint.h>

struct body_tls_bytes {
    unsigned char *data;
    size_t size;
};

/// Makes an ECDSA P-256 key and a self-signed certificate for `common_name`,
/// the `dns_count` names in `dns` and the `ip_count` addresses in `ips`
/// (text: "192.168.1.20", "::1"). PEM out: the key as PKCS #8, the certificate.
int body_tls_make(const char *common_name,
                  const char *const *dns, size_t dns_count,
                  const char *const *ips, size_t ip_count,
                  struct body_tls_bytes *key_pem, struct body_tls_bytes *cert_pem,
                  char *why, size_t why_size);

/// Checks that the PEM key and certificate belong together, and writes the
/// SHA-256 of the certificate's public key (its SubjectPublicKeyInfo, DER:
/// the pin of RFC 7469, curl's --pinnedpubkey, Chromium's SPKI list) into `pin`.
int body_tls_check(const unsigned char *key_pem, size_t key_size,
                   const unsigned char *cert_pem, size_t cert_size,
                   unsigned char pin[32], char *why, size_t why_size);

/// The certificate's subject alternative names, one a line, into `out`.
int body_tls_names(const unsigned char *cert_pem, size_t cert_size,
                   char *out, size_t out_size, char *why, size_t why_size);

/// Wipes and frees what body_tls_make handed out; safe on an empty value.
void body_tls_free(struct body_tls_bytes *bytes);

/// The interface addresses of this machine as text, one a line, into `out`
/// (getifaddrs): the addresses the certificate names.
int body_tls_local_addresses(char *out, size_t out_size, char *why, size_t why_size);

/// Reads the file at `path` whole into `out` (wiped and freed by
/// body_tls_free) and its permission bits into `mode`. 0 when read, 1 when
/// there is no such file, -1 with the reason. At most 64 KiB: a key or a
/// certificate, not a disk image.
int body_tls_read_file(const char *path, struct body_tls_bytes *out, unsigned *mode, char *why, size_t why_size);

/// Writes `size` bytes to `path` with mode 0600: first to `path.new`, synced,
/// then renamed over `path`, so a power cut leaves the old file or the new, whole.
int body_tls_write_file(const char *path, const unsigned char *data, size_t size, char *why, size_t why_size);

/// Makes the directory (mode 0700) when it is not there.
int body_tls_make_directory(const char *path, char *why, size_t why_size);

#endif
