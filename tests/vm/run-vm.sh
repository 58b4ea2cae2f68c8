#!/bin/bash
# Boots a test VM and reports what its scenario wrote to the results port.
#
#   tests/vm/run-vm.sh --kernel K --initrd I [--scenario NAME] [--nodes N] [--cpus C]
#                      [--mem MiB] [--timeout S] [--append ARGS] [--results FILE]
#                      [--console FILE] [--plugin SO[,ARGS]] [--plugin-log FILE]
#
# Defaults: 2 nodes, 4 CPUs, 2048 MiB, 300 s. N nodes get C/N CPUs (sockets)
# and MiB/N memory each: node i has CPUs i*C/N .. (i+1)*C/N-1.
# Kernel command line: console=ttyS0 panic=-1 vm_nodes=N vm_cpus=C vm_mem_mib=M
# [scenario=NAME] ARGS. Serial 0 (console) goes to --console, serial 1 (the
# results port, /dev/ttyS1 in the guest) to --results (temporary files when
# not given). --plugin loads a TCG plugin (tests/vm/insn-count.so), whose
# output goes to --plugin-log; it forces TCG.
# Accelerator: KVM only when /dev/kvm is usable and the host's KVM is not the
# paravirtual one (/sys/module/kvm_pvm), else TCG (-cpu max). Override with
# NUMASTATD_VM_ACCEL=tcg|kvm.
#
# Prints the results port's lines (TAP) on stdout. Exit status 0 iff the
# results hold "VM-DONE rc=0" and the console shows neither "Initramfs
# unpacking failed" nor a kernel panic, and the timeout did not hit. qemu's
# own exit status is not trusted.
set -euo pipefail

PROG=run-vm.sh
say() { echo "$PROG: $*" >&2; }
die() { say "error: $*"; exit 2; }
usage() {
        sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
}

KERNEL='' INITRD='' NODES=2 CPUS=4 MEM=2048 TIMEOUT=300 APPEND='' RESULTS='' CONSOLE='' SCENARIO=''
PLUGIN='' PLUGIN_LOG=''
while [ $# -gt 0 ]; do
        opt=$1
        case $opt in --*=*) set -- "${opt%%=*}" "${opt#*=}" "${@:2}"; opt=$1 ;; esac
        case $opt in
        -h|--help) usage ;;
        --kernel|--initrd|--nodes|--cpus|--mem|--timeout|--append|--results|--console|--scenario|--plugin|--plugin-log)
                [ $# -ge 2 ] || die "$opt needs a value"
                case $opt in
                --kernel) KERNEL=$2 ;; --initrd) INITRD=$2 ;; --nodes) NODES=$2 ;;
                --cpus) CPUS=$2 ;; --mem) MEM=$2 ;; --timeout) TIMEOUT=$2 ;;
                --append) APPEND="$APPEND $2" ;; --results) RESULTS=$2 ;;
                --console) CONSOLE=$2 ;; --scenario) SCENARIO=$2 ;;
                --plugin) PLUGIN=$2 ;; --plugin-log) PLUGIN_LOG=$2 ;;
                esac
                shift 2
                ;;
        *) say "unknown argument: $opt"; usage ;;
        esac
done
[ -n "$KERNEL" ] && [ -n "$INITRD" ] || usage
[ -r "$KERNEL" ] || die "kernel $KERNEL not readable"
[ -r "$INITRD" ] || die "initrd $INITRD not readable"
for v in NODES CPUS MEM TIMEOUT; do
        [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--${v,,} wants a positive integer, got '${!v}'"
done
[ $((CPUS % NODES)) -eq 0 ] || die "--cpus $CPUS is not a multiple of --nodes $NODES"
[ $((MEM % NODES)) -eq 0 ] || die "--mem $MEM is not a multiple of --nodes $NODES"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: scripts/install-vm-deps.sh"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/numastatd-vm.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
: "${RESULTS:=$TMP/results.log}"
: "${CONSOLE:=$TMP/console.log}"
mkdir -p "$(dirname "$RESULTS")" "$(dirname "$CONSOLE")"
rm -f "$RESULTS" "$CONSOLE"
: >"$RESULTS"; : >"$CONSOLE"

# --- accelerator -------------------------------------------------------------------
ACCEL=${NUMASTATD_VM_ACCEL:-}
[ -n "$PLUGIN" ] && ACCEL=tcg     # plugins count what TCG translates
if [ -z "$ACCEL" ]; then
        if [ -e /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ ! -e /sys/module/kvm_pvm ]; then
                ACCEL=kvm
        else
                ACCEL=tcg
        fi
fi
case $ACCEL in
kvm) ACCEL_ARGS=(-accel kvm -cpu host) ;;
tcg) ACCEL_ARGS=(-accel tcg -cpu max) ;;
*) die "NUMASTATD_VM_ACCEL must be kvm or tcg" ;;
esac

# --- NUMA layout -------------------------------------------------------------------
PER_CPUS=$((CPUS / NODES))
PER_MEM=$((MEM / NODES))
NUMA_ARGS=(-smp "$CPUS,sockets=$NODES,cores=$PER_CPUS,threads=1" -m "${MEM}M")
for ((i = 0; i < NODES; i++)); do
        first=$((i * PER_CPUS)) last=$(((i + 1) * PER_CPUS - 1))
        cpus=$first; [ "$last" -gt "$first" ] && cpus="$first-$last"
        NUMA_ARGS+=(-object "memory-backend-ram,id=m$i,size=${PER_MEM}M"
                -numa "node,nodeid=$i,cpus=$cpus,memdev=m$i")
done

CMDLINE="console=ttyS0 panic=-1 vm_nodes=$NODES vm_cpus=$CPUS vm_mem_mib=$MEM"
[ -n "$SCENARIO" ] && CMDLINE="$CMDLINE scenario=$SCENARIO"
CMDLINE="$CMDLINE${APPEND}"

# shellcheck disable=SC2054 # commas are qemu syntax
QEMU=(qemu-system-x86_64 -nodefaults -no-user-config -nographic -no-reboot -monitor none
        "${ACCEL_ARGS[@]}" "${NUMA_ARGS[@]}"
        -kernel "$KERNEL" -initrd "$INITRD" -append "$CMDLINE"
        -serial "file:$CONSOLE" -serial "file:$RESULTS"
        -device isa-debug-exit,iobase=0xf4,iosize=0x04)
if [ -n "$PLUGIN" ]; then
        [ -n "$PLUGIN_LOG" ] || PLUGIN_LOG=$TMP/plugin.log
        QEMU+=(-plugin "$PLUGIN" -d plugin -D "$PLUGIN_LOG")
fi

say "booting $(basename "$KERNEL") ($ACCEL, $NODES nodes, $CPUS cpus, $MEM MiB, timeout ${TIMEOUT}s): $CMDLINE"
T0=$(date +%s.%N)
set +e
timeout --kill-after=10 "$TIMEOUT" "${QEMU[@]}" </dev/null >"$TMP/qemu.out" 2>&1
qrc=$?
set -e
T1=$(date +%s.%N)
SECS=$(echo "$T1 - $T0" | bc | sed 's/^\./0./')
SECS=$(printf '%.1f' "$SECS")

# --- verdict -----------------------------------------------------------------------
tr -d '\r' <"$RESULTS" | grep -v '^VM-DONE rc=' || true
problems=()
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
        problems+=("timeout after ${TIMEOUT}s")
fi
if grep -q 'Initramfs unpacking failed' "$CONSOLE"; then
        problems+=("console: $(grep -m1 'Initramfs unpacking failed' "$CONSOLE" | tr -d '\r')")
fi
if grep -q 'Kernel panic' "$CONSOLE"; then
        problems+=("console: $(grep -m1 'Kernel panic' "$CONSOLE" | tr -d '\r')")
fi
marker=$(tr -d '\r' <"$RESULTS" | sed -n 's/^VM-DONE rc=\([0-9]*\)$/\1/p' | tail -1)
if [ -z "$marker" ]; then
        problems+=("no VM-DONE marker on the results port")
elif [ "$marker" != 0 ]; then
        problems+=("scenario failed: VM-DONE rc=$marker")
fi
if [ ${#problems[@]} -eq 0 ]; then
        say "PASS: VM-DONE rc=0 after ${SECS}s (qemu start to exit)"
        exit 0
fi
for p in "${problems[@]}"; do say "FAIL: $p"; done
if [ -s "$TMP/qemu.out" ]; then
        say "qemu said:"; sed 's/^/  /' "$TMP/qemu.out" >&2
fi
say "last console lines ($CONSOLE):"
tail -n 30 "$CONSOLE" | tr -d '\r' | sed 's/^/  /' >&2
say "after ${SECS}s (qemu exit status $qrc)"
exit 1
