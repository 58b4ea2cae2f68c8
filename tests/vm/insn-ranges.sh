#!/bin/sh
# Prints the address ranges ("START END", hex, END exclusive) of the page
# allocator's and the vmstat code's functions on the allocation and free
# path, from a kernel's System.map (or /proc/kallsyms, or an excerpt of
# either that holds each such function and the symbols after it): the
# instruction-counting plugin's ranges= (tests/vm/insn-count.c). A function
# runs from its symbol to the next text symbol. The names are those of 5.10
# and 6.1 (a name missing in one kernel is simply absent); the list is
# deliberately narrow: allocation, free and the counters the NUMA
# statistics live in, not the fault path or page zeroing around them. The
# number of functions matched goes to stderr.
#
#   tests/vm/insn-ranges.sh System.map > ranges
#   tests/vm/insn-ranges.sh --pattern   the same functions' lines, as an ERE
#                                       for grep (a guest's quick excerpt:
#                                       grep -E -A2 "$(... --pattern)" /proc/kallsyms)
set -eu
NAMES='__alloc_pages(_nodemask|_slowpath)?|get_page_from_freelist|rmqueue(_bulk|_pcplist|_buddy)?|__rmqueue(_pcplist|_smallest|_fallback)?'
NAMES="$NAMES"'|prep_new_page|post_alloc_hook|alloc_pages(_vma)?|vma_alloc_folio|__folio_alloc|folio_alloc'
NAMES="$NAMES"'|free_unref_page(_list|_commit|_prepare)?|free_pcppages_bulk|__free_one_page|free_pcp_prepare|free_pages_prepare|__free_pages(_ok)?'
NAMES="$NAMES"'|zone_statistics|__inc_numa_state|__count_numa_events?|(__)?(inc|dec|mod)_(zone|node)_(page_)?state|__count_vm_events?|count_vm_events?'
if [ "${1:-}" = --pattern ]; then
        echo " [tTwW] ($NAMES)(\\.[^ ]*)?\$"
        exit 0
fi
MAP=$1
[ -r "$MAP" ] || { echo "insn-ranges.sh: cannot read $MAP" >&2; exit 1; }
grep -v '^--$' "$MAP" | sort | awk -v names="$NAMES" '
BEGIN { re = "^(" names ")$" }
$2 ~ /^[tTwW]$/ {
        name = $3; sub(/\..*/, "", name)        # .constprop.0, .isra.0, .part.0
        if (open != "") { print open, $1; open = "" }
        if (name ~ re) { open = $1; n++ }
}
END { print n + 0 " functions" > "/dev/stderr" }'
