# Sourced by run-all.sh (make check-vm), bench-vm.sh (make bench-vm) and
# systemd/run.sh: what they do before and around their boots. vm_prepare
# and plugin_spec expect HERE (tests/vm), BUILDDIR and WORK to be set.

n=0 failed=0
emit() {  # emit STATUS DESCRIPTION: one check of this script's TAP stream
        n=$((n + 1))
        if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

# relay FILE [NAME]: a boot's or a helper's checks and comments, renumbered
# into this stream; NAME, if given, tags each one "[NAME]".
relay() {
        local tag=${2:+[$2] } line
        while IFS= read -r line; do
                case $line in
                "ok "*) emit 0 "$tag${line#ok * - }" ;;
                "not ok "*) emit 1 "$tag${line#not ok * - }" ;;
                "# "*) echo "# $tag${line#\# }" ;;
                "#"*) echo "$line" ;;
                esac
        done < "$1"
}

# vm_prepare: the programs built, the three kernels (built once, cached in
# NUMASTATD_VM_CACHE) as K61, K510 and KSTOCK, and $WORK/initrd.cpio.gz with
# the project's binaries. Prints "Bail out!" and returns 1 if any is missing.
vm_prepare() {
        local b
        for b in numastatd numastatctl tests/vm/alloc-load tests/vm/react tests/vm/insn-count.so; do
                [ -x "$BUILDDIR/$b" ] || { echo "Bail out! $BUILDDIR/$b is not built (make check-vm builds it)"; return 1; }
        done
        echo "# building kernels (cached in ${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm})" >&2
        K61=$("$HERE/build-kernel.sh" 6.1) || { echo "Bail out! cannot build the 6.1 kernel"; return 1; }
        K510=$("$HERE/build-kernel.sh" 5.10) || { echo "Bail out! cannot build the patched 5.10 kernel"; return 1; }
        KSTOCK=$("$HERE/stock-kernel.sh" --elf) || { echo "Bail out! cannot unpack Debian's stock 6.1 kernel"; return 1; }
        # The guest scripts and scenarios go in as /guest and /scenarios by themselves.
        "$HERE/mkinitramfs.sh" "$WORK/initrd.cpio.gz" \
                --bin "$BUILDDIR/numastatd:/usr/bin/numastatd" "$BUILDDIR/numastatctl:/usr/bin/numastatctl" \
                "$BUILDDIR/tests/vm/alloc-load:/usr/bin/alloc-load" "$BUILDDIR/tests/vm/react:/usr/bin/react" \
                >&2 || { echo "Bail out! cannot pack the initramfs"; return 1; }
}

# plugin_spec NAME SYSTEM_MAP: the TCG plugin's qemu argument, with the
# page allocator's and vmstat's address ranges when the kernel's map is known.
plugin_spec() {
        local spec="$BUILDDIR/tests/vm/insn-count.so"
        if [ -r "$2" ] && "$HERE/insn-ranges.sh" "$2" > "$WORK/$1.ranges" 2>/dev/null; then
                spec="$spec,ranges=$WORK/$1.ranges"
        fi
        echo "$spec"
}
