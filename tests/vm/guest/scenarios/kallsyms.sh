#!/bin/sh
# The page allocator's and vmstat's functions in the running kernel's
# /proc/kallsyms, for a kernel whose System.map is not at hand (Debian's
# packages ship a stub): each such function's line and the few after it
# (its end is the next text symbol), from tests/vm/insn-ranges.sh
# --pattern, to the console as "insn-sym LINE"; the host makes the ranges
# (tests/vm/run-all.sh). A grep, not the whole list through sort and awk:
# under TCG that took 150 s. Booted through its ELF entry, which skips the
# decompressor and so KASLR, the kernel runs at its link addresses: the next
# boot of the same kernel has the same ranges, and the instruction counts
# use them.
. /guest/tap.sh
start=$(cut -d' ' -f1 /proc/uptime)
grep -E -A4 "$(sh /usr/bin/insn-ranges --pattern)" /proc/kallsyms | grep -v '^--$' > /tmp/syms
ok $? "the allocator's and vmstat's functions found in /proc/kallsyms ($(grep -cE "$(sh /usr/bin/insn-ranges --pattern)" /tmp/syms) symbols, $(awk -v s="$start" '{ printf "%.1f", $1 - s }' /proc/uptime) s)"
# Addresses shown as zeros (kptr_restrict) would give no range at all.
ok "$(! grep -q '^0* ' /tmp/syms; echo $?)" "  real addresses, not zeros"
sed 's/^/insn-sym /' /tmp/syms
diag "kernel: $(uname -r)"
done_testing
