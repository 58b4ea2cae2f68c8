#!/bin/bash
# Builds (once) a Debian 12 "bookworm" root filesystem for the systemd VM test
# and packs it as one uncompressed newc cpio for the kernel to unpack as its
# initramfs; prints the cpio's path on stdout.
#
#   tests/vm/systemd/build-rootfs.sh [collectors | trixie | bullseye | bullseye-collectors]
#
# The variant "trixie" is Debian 13 (rootfs-trixie): systemd 257 with its
# varlinkctl, and, downloaded beside the tree into $CACHE/debs, trixie's
# stock kernel package (linux-image-6.12.*-amd64) for
# tests/vm/stock-kernel.sh --suite=trixie. The variant "bullseye" is
# Debian 11 (rootfs-bullseye): systemd 247 and, the same way, its stock
# 5.10 kernel package (linux-image-5.10.0-*-amd64).
#
# The variant "bullseye-collectors" is the same for Debian 11
# (rootfs-bullseye-collectors), with its Zabbix agent 5.0 and without
# Glances, which Debian 11 does not have.
# The variant "collectors" adds the monitoring programs the known-readers
# test runs under their own units (rootfs-bookworm-collectors): Debian's
# prometheus-node-exporter, sysstat, collectd (with libmnl0, which its
# default processes plugin needs), atop and numactl, plus curl to
# scrape node_exporter; snmpd, zabbix-agent2, collectl, munin-node with
# munin-plugins-core, dstat, glances, nmon and open-vm-tools; and pcp's own packages in
# /var/lib/numastatd-vmtest/debs for the guest to install with apt (pcp's
# postinst needs a running systemd, which a debootstrap chroot has not),
# with their dependencies installed in the tree already.
#
# Needs: root, debootstrap (scripts/install-vm-deps.sh installs it), cpio,
# flock, and the Debian archive
# (NUMASTATD_VM_MIRROR, default http://deb.debian.org/debian). Nothing else is
# downloaded: no image exists for this, so the tree is made here and cached.
#
# Cache, in ${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}:
#   rootfs-bookworm/            the tree (debootstrap --variant=minbase)
#   rootfs-bookworm.key         hash of the recipe below that made it
#   rootfs-bookworm.cpio        the packed tree, without docs, man pages,
#                               locales and apt caches (owner 0:0)
#   rootfs-bookworm.cpio.dirs   the directories in that cpio, one a line, "./"
#                               stripped (tests/vm/systemd/run.sh leaves them out
#                               of the cpio it appends, so that it does not
#                               reset their modes)
#   rootfs-bookworm.cpio.key    the recipe hash the cpio was packed from
# The tree is rebuilt only when the recipe (suite, mirror, tool, package list,
# the tweaks, the pack exclusions) changes; the cpio only when the tree does.
set -euo pipefail

PROG=build-rootfs.sh
CACHE=${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}
MIRROR=${NUMASTATD_VM_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
# systemd as PID 1 and what the test uses, plus numastatd's runtime libraries
# (libsystemd0 is in minbase already). procps brings /bin/kill (ExecReload=),
# jq reads numastatctl --json and journalctl -o json.
PACKAGES="systemd,systemd-sysv,dbus,udev,procps,jq,libjson-c5,libinih1,libnuma1,libnl-3-200,libnl-genl-3-200"
VARIANT=${1:-}
NEXT_PACKAGES=
case $VARIANT in
"") NAME=$SUITE ;;
trixie | bullseye)
        SUITE=$VARIANT NAME=$VARIANT ;;
collectors | bullseye-collectors)
        [ "$VARIANT" = collectors ] || SUITE=bullseye
        NAME=$SUITE-collectors
        PACKAGES="$PACKAGES,prometheus-node-exporter,sysstat,collectd,libmnl0,atop,numactl,curl,netdata"
        # Installed with apt in the tree: debootstrap alone fails to order
        # their (perl) dependencies' configuration. Debian 11 has Zabbix's
        # agent 5.0 (agent 2 only in backports) and no Glances. open-vm-tools
        # for its unit and configuration (vmtoolsd itself runs only on VMware).
        NEXT_PACKAGES="snmpd zabbix-agent2 collectl munin-node munin-plugins-core dstat glances nmon open-vm-tools"
        [ "$SUITE" = bookworm ] ||
                NEXT_PACKAGES="snmpd zabbix-agent collectl munin-node munin-plugins-core dstat nmon open-vm-tools" ;;
*) echo "$PROG: unknown variant '$VARIANT' (expected collectors, trixie, bullseye or bullseye-collectors)" >&2; exit 2 ;;
esac
COLLECTORS=$([ "$NAME" = "$SUITE-collectors" ] && echo yes || echo no)
# Left out of the cpio (the directories themselves stay).
EXCLUDES=(usr/share/doc usr/share/man usr/share/info usr/share/locale usr/share/lintian
        var/cache/apt var/lib/apt/lists var/cache/debconf var/log)
# Bump when the tweaks in configure_tree change (VARIANT_TWEAKS: the variant's own).
TWEAKS_VERSION=1
VARIANT_TWEAKS=3

DIR=$CACHE/rootfs-$NAME
CPIO=$DIR.cpio

say() { echo "$PROG: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, and a tree of root's files)"
command -v cpio >/dev/null || die "cpio missing: scripts/install-vm-deps.sh"
# debootstrap only, also where mmdebstrap (≈ 13 s faster) is installed: the
# same tool everywhere makes the same tree. The build is cached anyway.
command -v debootstrap >/dev/null || die "debootstrap missing: scripts/install-vm-deps.sh"
TOOL=debootstrap

KEY=$(printf '%s\n' "$SUITE" "$MIRROR" "$TOOL" minbase "$PACKAGES" ${NEXT_PACKAGES:+"$NEXT_PACKAGES"} "${EXCLUDES[*]}" "$TWEAKS_VERSION" ${VARIANT:+"$VARIANT $VARIANT_TWEAKS"} |
        sha256sum | cut -c1-16)

mkdir -p "$CACHE"
exec 9>"$DIR.lock"
flock 9

# Runs on the finished tree, before the key is written.
configure_tree() {
        local root=$1
        echo numastatd-vm >"$root/etc/hostname"
        printf '127.0.0.1\tlocalhost\n127.0.1.1\tnumastatd-vm\n' >"$root/etc/hosts"
        # A fixed machine-id: no "first boot" (systemd-firstboot would prompt on the console).
        if [ ! -s "$root/etc/machine-id" ]; then
                echo 4e554d415354415444564d0000000001 >"$root/etc/machine-id"
        fi
        ln -sfn /dev/null "$root/etc/systemd/system/systemd-firstboot.service"
        # No virtual console to log in on (qemu -nodefaults); the serial console
        # getty the generator adds for console=ttyS0 is harmless.
        ln -sfn /dev/null "$root/etc/systemd/system/getty@tty1.service"
        # Nothing to fetch in the guest, and no network.
        ln -sfn /dev/null "$root/etc/systemd/system/apt-daily.timer"
        ln -sfn /dev/null "$root/etc/systemd/system/apt-daily-upgrade.timer"
        # An initramfs root: there is nothing to remount or to check.
        : >"$root/etc/fstab"
        if [ "$COLLECTORS" = yes ]; then
                # pcp's own packages, for apt to install in the guest under
                # systemd; what else pcp needs (python3, gawk, ...) is
                # installed in the tree now: in the guest, python3's
                # byte-compiling alone took minutes under TCG. (debootstrap's
                # own downloads go first: only pcp's are wanted.)
                local deps
                chroot "$root" apt-get clean && chroot "$root" apt-get update -qq >"$CACHE/apt-$NAME.log" 2>&1 &&
                        chroot "$root" apt-get install -y -qq --download-only --no-install-recommends pcp \
                                >>"$CACHE/apt-$NAME.log" 2>&1 || { tail -20 "$CACHE/apt-$NAME.log" >&2; die "cannot download pcp"; }
                deps=$(cd "$root/var/cache/apt/archives" && ls -- *.deb | sed 's/_.*//' |
                        grep -vE '^(pcp|pcp-conf|python3-pcp|libpcp[a-z0-9-]*)$')
                # shellcheck disable=SC2086 # package names
                DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends $deps \
                        >>"$CACHE/apt-$NAME.log" 2>&1 || { tail -20 "$CACHE/apt-$NAME.log" >&2; die "cannot install pcp's dependencies"; }
                # The next collectors; their services are not started in the
                # chroot (a policy-rc.d says no while they install).
                printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
                chmod 755 "$root/usr/sbin/policy-rc.d"
                # shellcheck disable=SC2086 # package names
                DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends \
                        $NEXT_PACKAGES >>"$CACHE/apt-$NAME.log" 2>&1 ||
                        { rm -f "$root/usr/sbin/policy-rc.d"; tail -20 "$CACHE/apt-$NAME.log" >&2; die "cannot install $NEXT_PACKAGES"; }
                rm -f "$root/usr/sbin/policy-rc.d"
                mkdir -p "$root/var/lib/numastatd-vmtest/debs"
                mv "$root"/var/cache/apt/archives/pcp*.deb "$root"/var/cache/apt/archives/libpcp*.deb \
                        "$root"/var/cache/apt/archives/python3-pcp*.deb "$root/var/lib/numastatd-vmtest/debs/"
                chroot "$root" apt-get clean
        fi
        if [ "$SUITE" != bookworm ]; then
                # The stock kernel the guest boots, as a package beside the
                # tree (trixie's 6.12, bullseye's 5.10).
                local pkg series
                series=$([ "$SUITE" = trixie ] && echo 6.12 || echo 5.10)
                chroot "$root" apt-get update -qq >"$CACHE/apt-$NAME.log" 2>&1 &&
                        pkg=$(chroot "$root" apt-cache depends linux-image-amd64 | sed -n 's/^  Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1) &&
                        [ -n "$pkg" ] && (cd "$root/tmp" && chroot "$root" sh -c "cd /tmp && apt-get download -qq $pkg") \
                                >>"$CACHE/apt-$NAME.log" 2>&1 || { tail -20 "$CACHE/apt-$NAME.log" >&2; die "cannot download $SUITE's kernel"; }
                mkdir -p "$CACHE/debs"
                rm -f "$CACHE"/debs/linux-image-"$series".*-amd64_*.deb
                mv "$root"/tmp/linux-image-*.deb "$CACHE/debs/"
                chroot "$root" apt-get clean
        fi
}

umount_under() {  # umount_under DIR: whatever a failed bootstrap left mounted
        local m
        for m in $(awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
                umount -l "$m" 2>/dev/null || true
        done
}

if [ -d "$DIR" ] && [ "$(cat "$DIR.key" 2>/dev/null)" = "$KEY" ]; then
        say "have $DIR (recipe $KEY)"
else
        say "building $DIR with $TOOL (recipe $KEY; was: $(cat "$DIR.key" 2>/dev/null || echo none))"
        t0=$SECONDS
        TMPDIR_ROOT=$DIR.tmp
        umount_under "$TMPDIR_ROOT"
        rm -rf --one-file-system "$TMPDIR_ROOT"
        mkdir -p "$TMPDIR_ROOT"
        trap 'umount_under "$TMPDIR_ROOT"; rm -rf --one-file-system "$TMPDIR_ROOT"' EXIT
        debootstrap --variant=minbase --merged-usr --include="$PACKAGES" \
                "$SUITE" "$TMPDIR_ROOT" "$MIRROR" >"$CACHE/debootstrap-$NAME.log" 2>&1 || {
                tail -n 30 "$CACHE/debootstrap-$NAME.log" >&2
                [ -f "$TMPDIR_ROOT/debootstrap/debootstrap.log" ] &&
                        tail -n 30 "$TMPDIR_ROOT/debootstrap/debootstrap.log" >&2
                die "debootstrap failed (log: $CACHE/debootstrap-$NAME.log)"
        }
        umount_under "$TMPDIR_ROOT"
        [ -x "$TMPDIR_ROOT/lib/systemd/systemd" ] || die "no /lib/systemd/systemd in the new tree"
        configure_tree "$TMPDIR_ROOT"
        umount_under "$DIR"
        rm -rf --one-file-system "$DIR" "$DIR.key" "$CPIO" "$CPIO.key" "$CPIO.dirs"
        mv "$TMPDIR_ROOT" "$DIR"
        trap - EXIT
        echo "$KEY" >"$DIR.key"
        say "built $DIR in $((SECONDS - t0)) s ($(du -sm "$DIR" | cut -f1) MiB)"
fi

if [ -s "$CPIO" ] && [ "$(cat "$CPIO.key" 2>/dev/null)" = "$KEY" ] && [ -s "$CPIO.dirs" ]; then
        say "have $CPIO"
else
        t0=$(date +%s.%N)
        prune=()
        for e in "${EXCLUDES[@]}"; do
                prune+=(-path "./$e/*" -o)
        done
        unset 'prune[${#prune[@]}-1]'
        (cd "$DIR" && find . -mindepth 1 \( "${prune[@]}" \) -prune -o -print | LC_ALL=C sort) >"$CPIO.list"
        (cd "$DIR" && cpio --quiet -o -H newc --owner 0:0 <"$CPIO.list") >"$CPIO.tmp"
        (cd "$DIR" && while IFS= read -r p; do
                [ -d "$p" ] && [ ! -L "$p" ] && echo "${p#./}"
        done <"$CPIO.list") >"$CPIO.dirs"
        rm -f "$CPIO.list"
        mv "$CPIO.tmp" "$CPIO"
        echo "$KEY" >"$CPIO.key"
        t1=$(date +%s.%N)
        say "packed $CPIO ($(($(stat -c %s "$CPIO") / 1048576)) MiB) in $(printf '%.1f' "$(echo "$t1 - $t0" | bc)") s"
fi
echo "$CPIO"
