// TurboJPEG (libturbojpeg0-dev), plus the one loop Swift should not run per pixel.
#include <stddef.h>
#include <stdint.h>
#include <turbojpeg.h>

/// Splits packed YUYV 4:2:2 (Y0 U Y1 V) into the planar Y, U, V layout that
/// tjCompressFromYUV reads with TJSAMP_422 and pad 1. `stride` is the source's
/// bytes per line; `width` must be even.
static inline void ctj_yuyv_to_i422(const uint8_t *src, int stride, int width, int height, uint8_t *dst) {
    uint8_t *y = dst;
    uint8_t *u = dst + (size_t)width * height;
    uint8_t *v = u + (size_t)(width / 2) * height;
    for (int row = 0; row < height; row++) {
        const uint8_t *s = src + (size_t)row * stride;
        for (int x = 0; x < width / 2; x++) {
            *y++ = s[0];
            *u++ = s[1];
            *y++ = s[2];
            *v++ = s[3];
            s += 4;
        }
    }
}
