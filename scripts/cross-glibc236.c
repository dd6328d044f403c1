/*
 * Linked into the Bookworm arm64 build only (scripts/cross, glibc 2.36).
 *
 * Why: the Swift runtime linked in statically (Foundation and its C parts, from Debian's
 * swiftlang 6.2.3) was compiled against glibc 2.42, whose headers in C23 mode turn
 * strtol() and sscanf() into the new names __isoc23_strtol() and __isoc23_sscanf().
 * glibc 2.38 added those names; Raspberry Pi OS Bookworm has 2.36, so without these the
 * link fails ("undefined reference to `__isoc23_strtol'").
 *
 * What: each forwards to the pre-C23 function of the same meaning. The one difference
 * C23 made is that the new ones also read a "0b"/"0B" binary prefix when the base is
 * 0 or 2 (and %i/%b in sscanf); the runtime's callers parse decimal and hex numbers
 * (numbers in JSON, property lists, /proc files), never binary literals, so the old
 * meaning is theirs too. Nothing in the body's own code calls these names.
 *
 * Remove this file when the build's glibc is 2.38 or newer (Trixie has 2.41).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return strtoul(s, end, base); }
long long __isoc23_strtoll(const char *s, char **end, int base) { return strtoll(s, end, base); }
unsigned long long __isoc23_strtoull(const char *s, char **end, int base) { return strtoull(s, end, base); }

int __isoc23_sscanf(const char *s, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    int n = vsscanf(s, format, ap);
    va_end(ap);
    return n;
}
