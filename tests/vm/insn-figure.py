#!/usr/bin/env python3
"""Guest instructions per allocated page, counting on and off, from the log
of the instruction-counting plugin (tests/vm/insn-count.c) over the rounds
of `alloc-load insn` (tests/vm/guest/scenarios/insn.sh).

    insn-figure.py LOG PAGES ROUNDS CPU KIND [MARKDOWN]

Prints TAP lines (sanity checks only) and "# figure:" lines: for all
instructions and for the allocator's and vmstat's code alone (when the log
has ranges), the median per page with counting on and off, and the paired
difference on - off per round (median and range): paired rounds cancel the
drift between rounds that the medians alone would carry. With MARKDOWN,
appends the kernel's row to that table (make bench-vm)."""
import re
import statistics
import sys

MARK = re.compile(r"^mark vcpu=(\d+) label=(\d+) insns=(\d+) filtered=(\d+)")
ON_START, ON_END, OFF_START, OFF_END = 1, 2, 3, 4


def main():
    log, pages, rounds, cpu, kind = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    markdown = sys.argv[6] if len(sys.argv) > 6 else None
    cells = []
    marks, ranges = [], 0
    with open(log, errors="replace") as f:
        for line in f:
            m = MARK.match(line)
            if m and int(m.group(1)) == cpu:
                marks.append(tuple(int(g) for g in m.groups()[1:]))
            r = re.match(r"^insn-count: plugin API \d+, (\d+) address ranges", line)
            if r:
                ranges = int(r.group(1))
    n, failed = 0, 0

    def check(cond, what):
        nonlocal n, failed
        n += 1
        print(("ok" if cond else "not ok"), n, "-", what)
        failed += 0 if cond else 1

    # Phases in order: a start marker then its end marker.
    phases = []
    for start, end in zip(marks[0::2], marks[1::2]):
        if (start[0], end[0]) not in ((ON_START, ON_END), (OFF_START, OFF_END)):
            break
        phases.append((start[0] == ON_START, (end[1] - start[1]) / pages, (end[2] - start[2]) / pages))
    check(len(phases) == 2 * rounds and len(marks) == 4 * rounds,
          f"the plugin saw all {4 * rounds} markers on vCPU {cpu} in order ({len(marks)} seen)")
    if len(phases) != 2 * rounds:
        print("1..%d" % n)
        return 1
    pairs = [(a, b) if a[0] else (b, a) for a, b in zip(phases[0::2], phases[1::2])]
    check(all(on[0] and not off[0] for on, off in pairs), "each round has one phase on and one off")

    def figure(idx, what):
        on = [p[0][idx] for p in pairs]
        off = [p[1][idx] for p in pairs]
        diff = [a - b for a, b in zip(on, off)]
        print(f"# figure: {what} per page on {kind}, {pages} pages x {rounds} paired rounds on vCPU {cpu}: "
              f"counting on median {statistics.median(on):.1f} (range {min(on):.1f}-{max(on):.1f}), "
              f"off median {statistics.median(off):.1f} (range {min(off):.1f}-{max(off):.1f}); "
              f"on - off paired: median {statistics.median(diff):+.1f}, range {min(diff):+.1f} to {max(diff):+.1f} "
              f"({100 * statistics.median(diff) / statistics.median(on):+.2f}% of on)")
        cells.extend([f"{statistics.median(on):.1f}", f"{statistics.median(off):.1f}",
                      f"{statistics.median(diff):+.1f} ({min(diff):+.1f} to {max(diff):+.1f})"])
        return on, off, diff

    on, off, _ = figure(1, "guest instructions (all)")
    check(all(200 < v < 1e6 for v in on + off), "instructions per page within sanity bounds (200 - 1e6)")
    if ranges:
        fon, foff, _ = figure(2, f"allocator+vmstat instructions ({ranges} address ranges)")
        check(all(0 < f < t for f, t in zip(fon + foff, on + off)),
              "the allocator's share is above zero and below the total")
    else:
        print(f"# figure: allocator+vmstat instructions on {kind}: not measured (no System.map for this kernel)")
        cells.extend(["n/a"] * 3)
    if markdown:
        with open(markdown, "a") as f:
            f.write(f"| {kind} | {pages} x {rounds} | " + " | ".join(cells) + " |\n")
    print("1..%d" % n)
    return 1 if failed else 0


sys.exit(main())
