# shellcheck shell=bash
# The debug build against each libgpiod API, on the host: what gpio-tests and raspios-tests
# share. Source it from the repository root; each function prints the build's bin directory.

# libgpiod 1.6 (Debian 12's libgpiod-dev), with coverage like scripts/test's build, so it reuses that build.
build_gpio_v1() {
    echo "$LIB_NAME: building against libgpiod 1.6 (system)" >&2
    env -u STUDIO_BODY_LIBGPIOD_PREFIX swift build "${SWIFT_BUILD_FLAGS[@]}" --scratch-path .build >&2
    echo ".build/debug"
}

# libgpiod 2.1.3 (bookworm-backports, unpacked by Tests/hil/libgpiod2-prefix), in a build path of its own.
build_gpio_v2() {
    "$HIL_DIR/libgpiod2-prefix" --quiet >&2
    # shellcheck disable=SC1091
    . "$HIL_DIR/cache/libgpiod2/env"
    [[ -f $LIBGPIOD2_INCLUDE/gpiod.h && -e $LIBGPIOD2_LIB/libgpiod.so ]] \
        || die "libgpiod2-prefix gave no gpiod.h in $LIBGPIOD2_INCLUDE or libgpiod.so in $LIBGPIOD2_LIB"
    # Package.swift reads one prefix with include/ and lib/ in it.
    local prefix=$PWD/.build/hil-gpio/libgpiod2
    mkdir -p "$prefix"
    ln -sfn "$LIBGPIOD2_INCLUDE" "$prefix/include"
    ln -sfn "$LIBGPIOD2_LIB" "$prefix/lib"
    echo "$LIB_NAME: building against libgpiod $LIBGPIOD2_VERSION ($LIBGPIOD2_LIB)" >&2
    STUDIO_BODY_LIBGPIOD_PREFIX=$prefix swift build --build-tests --scratch-path .build/hil-gpio/v2 >&2
    echo ".build/hil-gpio/v2/debug"
}
