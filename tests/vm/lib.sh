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
# NUMASTATD_VM_CACHE) as K61, K510 and KSTOCK (and Debian 11's as KSTOCK510
# where cached), and $WORK/initrd.cpio.gz with
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
        # Debian 11's stock 5.10, where its package is cached (build-rootfs.sh
        # bullseye); empty otherwise, and its boots say why they are skipped.
        KSTOCK510=$("$HERE/stock-kernel.sh" --suite=bullseye --elf 2> "$WORK/kstock510.err") || KSTOCK510=
        # The guest scripts and scenarios go in as /guest and /scenarios by themselves.
        "$HERE/mkinitramfs.sh" "$WORK/initrd.cpio.gz" \
                --bin "$BUILDDIR/numastatd:/usr/bin/numastatd" "$BUILDDIR/numastatctl:/usr/bin/numastatctl" \
                "$BUILDDIR/tests/vm/alloc-load:/usr/bin/alloc-load" "$BUILDDIR/tests/vm/react:/usr/bin/react" \
                --file "$HERE/insn-ranges.sh:/usr/bin/insn-ranges" \
                >&2 || { echo "Bail out! cannot pack the initramfs"; return 1; }
}

# kallsyms_ranges NAME KERNEL: the allocator's and vmstat's address ranges
# of a kernel without a System.map (Debian's), from the lines of its
# /proc/kallsyms that a boot of its own prints
# (tests/vm/guest/scenarios/kallsyms.sh), into $WORK/NAME.ranges for
# plugin_spec; an empty file if the boot failed (all instructions are then
# counted only, and this boot's checks say why).
kallsyms_ranges() {
        local name=$1 kernel=$2 start=$SECONDS rc nranges
        "$HERE/run-vm.sh" --kernel "$kernel" --initrd "$WORK/initrd.cpio.gz" --scenario kallsyms \
                --results "$WORK/$name.results" --console "$WORK/$name.console" > "$WORK/$name.tap"
        rc=$?
        relay "$WORK/$name.tap" "$name"
        emit $rc "[$name] boot ran the scenario to the end ($((SECONDS - start)) s)"
        tr -d '\r' < "$WORK/$name.console" | sed -n 's/^insn-sym //p' > "$WORK/$name.syms"
        "$HERE/insn-ranges.sh" "$WORK/$name.syms" > "$WORK/$name.ranges" 2> /dev/null || : > "$WORK/$name.ranges"
        nranges=$(wc -l < "$WORK/$name.ranges")
        # A range longer than 64 KiB would mean a function's end was not
        # among the lines printed.
        emit "$([ "$nranges" -ge 10 ] && short_ranges "$WORK/$name.ranges"; echo $?)" \
                "[$name] $nranges address ranges, each within 64 KiB"
}
short_ranges() {  # short_ranges FILE: every "START END" within 64 KiB
        local start end
        while read -r start end; do
                [ $((0x$end - 0x$start)) -gt 0 ] && [ $((0x$end - 0x$start)) -le 65536 ] || return 1
        done < "$1"
}

# plugin_spec NAME SYSTEM_MAP|RANGES: the TCG plugin's qemu argument, with
# the page allocator's and vmstat's address ranges when the kernel's map is
# known (a file named *.ranges: the ranges themselves, from the guest's
# /proc/kallsyms).
plugin_spec() {
        local spec="$BUILDDIR/tests/vm/insn-count.so"
        if [ "${2%.ranges}" != "$2" ] && [ -s "$2" ]; then
                spec="$spec,ranges=$2"
        elif [ -r "$2" ] && "$HERE/insn-ranges.sh" "$2" > "$WORK/$1.ranges" 2>/dev/null; then
                spec="$spec,ranges=$WORK/$1.ranges"
        fi
        echo "$spec"
}
