# shellcheck shell=bash
# systemd 252 as PID 1 of a PID namespace, inside the HIL guest: what stoppost-test and
# deb-test share. Source it in the guest, then `start_systemd`; `in_ns CMD...` runs a
# command in systemd's namespace (systemctl, journalctl, dpkg whose scripts call them).
#
# The guest's command runs chrooted, and the kernel refuses user namespaces (PrivateUsers=)
# to a chrooted process, so systemd starts from the guest init's view instead: in a new mount
# namespace the overlay root is moved onto / (what switch_root does), then systemd runs there.

# Units no test here needs, masked to shorten a boot that TCG makes slow.
mask_slow_units() {
    local u
    for u in dev-hugepages.mount dev-mqueue.mount sys-kernel-debug.mount sys-kernel-tracing.mount \
        sys-fs-fuse-connections.mount systemd-modules-load.service systemd-sysctl.service \
        systemd-remount-fs.service systemd-binfmt.service systemd-random-seed.service \
        modprobe@dm_mod.service modprobe@drm.service modprobe@efi_pstore.service \
        modprobe@fuse.service modprobe@loop.service modprobe@configfs.service \
        systemd-journal-flush.service systemd-update-utmp.service \
        systemd-tmpfiles-setup.service; do
        ln -sf /dev/null "/etc/systemd/system/$u"
    done
}

# Boots systemd to basic.target (journald, udevd, coldplug) and waits until it settles.
# Sets $sd (systemd's pid as the guest sees it). Returns 1 with its output if it never came up.
start_systemd() {
    mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup
    nsenter --target 1 --mount --root --wd -- /bin/sh -c "unshare -p -f -m --propagation private /bin/sh -c '
        cd /newroot && mount -o move . / && exec chroot . /bin/sh -c \"mount -t proc proc /proc &&
        exec /lib/systemd/systemd --system --unit=basic.target\"'" </dev/null >/tmp/systemd.out 2>&1 &
    wait_for 60 test -S /run/systemd/private || { cat /tmp/systemd.out; return 1; }
    sd=$(pgrep -x systemd | head -1)
    local state
    state=$(in_ns timeout 120 systemctl is-system-running --wait || true)
    echo "# systemd: $state at $(cut -d' ' -f1 /proc/uptime) s uptime"
    in_ns udevadm settle --timeout=30 || true
}

in_ns() { nsenter --target "$sd" --mount --pid --root --wd "$@"; }
