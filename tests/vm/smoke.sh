#!/bin/bash
# Smoke test of the VM harness: boots scenario "smoke"
# (tests/vm/guest/scenarios/smoke.sh) on the test kernels and prints a summary
# with the boot-to-poweroff times.
#
#   tests/vm/smoke.sh [VARIANT...]
#
# VARIANTs (default: all of them, in this order):
#   tiny-6.1      6.1 tinyconfig kernel (build-kernel.sh 6.1), 2 nodes, 4 cpus
#   stock-6.1     Debian's stock 6.1 kernel (stock-kernel.sh --elf), 2 nodes, 4 cpus
#   tiny-6.1-4n   6.1 tinyconfig kernel, 4 nodes, 8 cpus
#   stock-6.1-4n  Debian's stock 6.1 kernel, 4 nodes, 8 cpus
#   tiny-5.10     5.10 tinyconfig kernel (with tests/vm/patches/5.10/*.patch), 2 nodes, 4 cpus
# Kernels are built when missing (minutes; one build at a time). Console and
# results logs stay in ${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}/smoke/.
# Exit status 0 iff every variant passed.
set -euo pipefail

PROG=smoke.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}
OUT=$CACHE/smoke
say() { echo "$PROG: $*" >&2; }

ALL=(tiny-6.1 stock-6.1 tiny-6.1-4n stock-6.1-4n tiny-5.10)
VARIANTS=("$@")
[ ${#VARIANTS[@]} -gt 0 ] || VARIANTS=("${ALL[@]}")
for v in "${VARIANTS[@]}"; do
        [[ " ${ALL[*]} " == *" $v "* ]] || { say "unknown variant $v (have: ${ALL[*]})"; exit 2; }
done

mkdir -p "$OUT"
gcc -O2 -Wall -Wextra -I"$HERE/../../lib" -o "$OUT/fanotify-probe" "$HERE/smoke/fanotify-probe.c"
"$HERE/mkinitramfs.sh" "$OUT/smoke.cpio.gz" --bin "$OUT/fanotify-probe:/usr/local/bin/fanotify-probe"

declare -A KERNEL=()
kernel_for() {
        local k=$1
        if [ -z "${KERNEL[$k]:-}" ]; then
                case $k in
                tiny-6.1) KERNEL[$k]=$("$HERE/build-kernel.sh" 6.1) ;;
                tiny-5.10) KERNEL[$k]=$("$HERE/build-kernel.sh" 5.10) ;;
                stock-6.1) KERNEL[$k]=$("$HERE/stock-kernel.sh" --elf) ;;
                esac
        fi
        echo "${KERNEL[$k]}"
}

summary=() failed=0
for v in "${VARIANTS[@]}"; do
        nodes=2 cpus=4
        case $v in *-4n) nodes=4 cpus=8 ;; esac
        k=${v%-4n}
        if ! kernel=$(kernel_for "$k"); then
                summary+=("FAIL  $v: no kernel")
                failed=$((failed + 1))
                continue
        fi
        KERNEL[$k]=$kernel
        say "=== $v: $kernel"
        t0=$(date +%s.%N)
        if "$HERE/run-vm.sh" --kernel "$kernel" --initrd "$OUT/smoke.cpio.gz" --scenario smoke \
                --nodes "$nodes" --cpus "$cpus" --timeout 300 \
                --console "$OUT/$v.console.log" --results "$OUT/$v.results.log"; then
                res=PASS
        else
                res=FAIL
                failed=$((failed + 1))
        fi
        secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
        summary+=("$res  $v ($nodes nodes, $cpus cpus): ${secs}s boot to poweroff")
done
say "summary:"
for s in "${summary[@]}"; do echo "  $s" >&2; done
[ "$failed" -eq 0 ]
