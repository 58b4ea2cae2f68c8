#!/usr/bin/env python3
"""The macro study's table and plot, from one boot per kernel of
tests/vm/guest/scenarios/macro.sh: the "# macro ..." lines of its results
and the instruction-counting plugin's markers (two per phase on CPU 0, the
workload's, and two on CPU 1, the daemon's).

    macro-figure.py OUTDIR RESULTS PLUGINLOG [RESULTS PLUGINLOG ...]

Writes OUTDIR/macro.md (a markdown table per kernel) and OUTDIR/macro.svg
(per kernel and strategy: the share of coarse's saving kept, and the share
of counted reads that saw the counters move), and prints TAP sanity checks
and the table's rows as "# figure:" lines.

Each phase's "# trace" line (the pages allocated each second, the counted
reads' times, the daemon's thresholds) goes to the oracle
(tests/bench/oracle-trace, $ORACLE_TRACE): the best schedule any policy
could follow there, serving every read after a reader's first. A
strategy's saving is then also given as a share of the oracle's."""
import html
import os
import re
import subprocess
import sys

MARK = re.compile(r"^mark vcpu=(\d+) label=5 insns=(\d+) filtered=(\d+)")
LINE = re.compile(r"^# macro (.*)$")
TRACE = re.compile(r"^# trace (.*)$")
ORACLE = os.environ.get("ORACLE_TRACE", "oracle-trace")


def oracle(kv):
    """The oracle's figures for one phase's trace, or None."""
    if not kv or not kv.get("rates"):
        return None
    interval = int(kv["interval"])
    coarse, strict, sustain, dwell = kv["limits"].split(",")
    lines = [f"interval {interval}", f"limits {coarse} {strict} {sustain} {dwell}"]
    lines += [f"rate {int(p) * 1e6 / interval}" for p in kv["rates"].split(",")]
    lines += [f"read {int(t) * 1000} 1" for t in kv.get("reads_ms", "").split(",") if t]
    try:
        out = subprocess.run([ORACLE], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"# oracle: {e}", file=sys.stderr)
        return None
    return dict(w.split("=", 1) for w in out.stdout.split())

DESCRIPTION = {
    "strict": "counting always on",
    "coarse": "counting always off",
    "kernel-auto": "the kernel's auto alone (armed once)",
    "numastatd-coarse": "numastatd auto, off_mode=coarse, linger 5s",
    "numastatd-auto": "numastatd auto, off_mode=auto, linger 5s",
    "numastatd": "numastatd auto, linger 5s",
    "numastatd-linger": "numastatd auto, linger 15s",
}


def parse(results, plugin):
    phases, traces = [], {}
    with open(results, errors="replace") as f:
        for line in f:
            t = TRACE.match(line.strip())
            if t:
                kv = dict(w.split("=", 1) for w in re.findall(r"\S+=\S*", t.group(1)))
                traces[kv.get("strategy")] = kv
                continue
            m = LINE.match(line.strip())
            if m:
                kv = dict(w.split("=", 1) for w in re.findall(r"\S+=\S+", m.group(1)))
                kind = re.search(r"kind=(.*?) seconds=", m.group(1)).group(1)
                kv["kind"] = kind
                phases.append(kv)
    marks = {0: [], 1: []}
    with open(plugin, errors="replace") as f:
        for line in f:
            m = MARK.match(line)
            if m and int(m.group(1)) in marks:
                marks[int(m.group(1))].append((int(m.group(2)), int(m.group(3))))
    for p in phases:
        p["oracle"] = oracle(traces.get(p["strategy"]))
    return phases, marks


def rows_for(phases, marks):
    rows = []
    for i, p in enumerate(phases):
        if 2 * i + 1 >= len(marks[0]) or 2 * i + 1 >= len(marks[1]):
            break
        (a0, f0), (b0, g0) = marks[0][2 * i], marks[0][2 * i + 1]
        (a1, _), (b1, _) = marks[1][2 * i], marks[1][2 * i + 1]
        pages = int(p["pages"])
        classified = int(p["moved"]) + int(p["frozen"]) + int(p["reset"])
        rows.append({
            "strategy": p["strategy"],
            "pages": pages,
            "insns": (b0 - a0) / pages if pages else 0.0,
            "alloc": (g0 - f0) / pages if pages else 0.0,
            "cpu1": (b1 - a1) / int(p["seconds"]),
            "classified": classified,
            "moved": int(p["moved"]), "frozen": int(p["frozen"]), "reset": int(p["reset"]),
            "transitions": int(p["transitions"]), "resets": int(p["resets"]), "arms": int(p["arms"]),
            "ticks": int(p.get("daemon_ticks", 0)),
            "oracle": p.get("oracle"),
            "daemon": (p.get("daemon_served", "-"), p.get("daemon_unserved", "-"), p.get("daemon_first_off", "-")),
        })
    return rows


def kept(rows, r, key):
    on = next((x[key] for x in rows if x["strategy"] == "strict"), None)
    off = next((x[key] for x in rows if x["strategy"] == "coarse"), None)
    if on is None or off is None or on - off <= 0:
        return None
    return 100.0 * (on - r[key]) / (on - off)


def oracle_share(r):
    """The share of the pages the oracle keeps counting off for, in % (coarse's: 100%)."""
    o = r.get("oracle")
    return 100.0 * float(o["share_off"]) if o else None


def kept_of_oracle(rows, r, key):
    k, o = kept(rows, r, key), oracle_share(r)
    return None if k is None or not o else 100.0 * k / o


def pct(v):
    return "n/a" if v is None else f"{v:.0f}%"


def table(kind, rows, seconds, period):
    key = "alloc" if any(r["alloc"] for r in rows) else "insns"
    out = [f"**{kind}** ({seconds} s per strategy, a counted reader every {period} s, an ignored one every second, "
           f"quiet from 50% to 70%)", "",
           "| strategy | allocator instructions per page | all instructions per page | share of coarse's saving kept "
           "| the oracle would keep | share of the oracle's "
           "| counted reads that saw counters move | frozen | reset "
           "| the daemon's figure for the counted reader: served / unserved / first reads off | switches | counter resets "
           "| CPU 1 instructions/s (the daemon's CPU) | daemon CPU time |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        k = kept(rows, r, key)
        served = f"{r['moved']} of {r['classified']}" if r["classified"] else "n/a"
        cpu_time = f"{r['ticks'] * 10} ms" if r["ticks"] else "-"     # clock ticks of 10 ms
        alloc = f"{r['alloc']:.1f}" if key == "alloc" else "n/a"
        out.append(f"| {r['strategy']} ({DESCRIPTION.get(r['strategy'], '')}) | "
                   f"{alloc} | {r['insns']:.1f} | {'n/a' if k is None else f'{k:.0f}%'} | "
                   f"{pct(oracle_share(r))} | {pct(kept_of_oracle(rows, r, key))} | {served} | "
                   f"{r['frozen']} | {r['reset']} | {' / '.join(r['daemon'])} | {r['transitions']} | {r['resets']} | "
                   f"{r['cpu1'] / 1e6:.2f}M | {cpu_time} |")
    return out, key


def svg(kinds):
    """Per kernel a block; per strategy two bars: saving kept, reads served."""
    width, row_h, label_w, bar_w, gap = 880, 22, 170, 250, 110
    y, parts = 48, []
    for kind, rows, key in kinds:
        parts.append(f'<text x="10" y="{y}" font-weight="bold">{html.escape(kind)}</text>')
        y += 18
        parts.append(f'<text x="{label_w}" y="{y}" font-size="11">saving kept, % of coarse\'s '
                     f'({"allocator" if key == "alloc" else "all"} instructions)</text>')
        parts.append(f'<text x="{label_w + bar_w + gap}" y="{y}" font-size="11">counted reads that saw the '
                     f'counters move</text>')
        y += 10
        for r in rows:
            y += row_h
            k = kept(rows, r, key)
            served = 100.0 * r["moved"] / r["classified"] if r["classified"] else 0.0
            parts.append(f'<text x="10" y="{y}" font-size="12">{html.escape(r["strategy"])}</text>')
            kv = max(0.0, min(100.0, k if k is not None else 0.0))
            parts.append(f'<rect x="{label_w}" y="{y - 14}" width="{bar_w * kv / 100:.1f}" height="16" '
                         f'fill="#4a7bd0"/>')
            parts.append(f'<text x="{label_w + bar_w * kv / 100 + 4:.1f}" y="{y}" font-size="11">'
                         f'{"n/a" if k is None else f"{k:.0f}%"}</text>')
            x2 = label_w + bar_w + gap
            parts.append(f'<rect x="{x2}" y="{y - 14}" width="{bar_w * served / 100:.1f}" height="16" '
                         f'fill="#3ca06a"/>')
            parts.append(f'<text x="{x2 + bar_w * served / 100 + 4:.1f}" y="{y}" font-size="11">'
                         f'{served:.0f}% ({r["moved"]}/{r["classified"]})</text>')
        y += 40
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" '
            f'font-family="sans-serif" font-size="13">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n'
            f'<text x="10" y="20" font-size="15">numastatd: what each strategy saves (blue) and serves '
            f'(green)</text>\n' + "\n".join(parts) + "\n</svg>\n")


def main():
    outdir, pairs = sys.argv[1], sys.argv[2:]
    n = failed = 0
    md, kinds = ["# The macro study", ""], []

    def check(cond, what):
        nonlocal n, failed
        n += 1
        print(("ok" if cond else "not ok"), n, "-", what)
        failed += 0 if cond else 1

    for results, plugin in zip(pairs[0::2], pairs[1::2]):
        phases, marks = parse(results, plugin)
        rows = rows_for(phases, marks)
        kind = phases[0]["kind"] if phases else os.path.basename(results)
        check(phases and len(rows) == len(phases),
              f"{kind}: markers for every strategy ({len(rows)} of {len(phases)})")
        if not rows:
            continue
        check(all(200 < r["insns"] < 1e6 for r in rows), f"{kind}: instructions per page within sanity bounds")
        check(all(r["oracle"] for r in rows), f"{kind}: the oracle planned every phase's trace")
        check(all(r["oracle"]["served"] == r["oracle"]["servable"] for r in rows if r["oracle"]),
              f"{kind}: the oracle serves every servable read")
        lines, key = table(kind, rows, phases[0]["seconds"], phases[0]["period"])
        md += lines + [""]
        kinds.append((kind, rows, key))
        for r in rows:
            k = kept(rows, r, key)
            alloc = f"{r['alloc']:.1f}" if key == "alloc" else "n/a"
            print(f"# figure: macro {kind} {r['strategy']}: {alloc} allocator / {r['insns']:.1f} all "
                  f"instructions per page, saving kept {'n/a' if k is None else f'{k:.0f}%'} of coarse's, "
                  f"{pct(kept_of_oracle(rows, r, key))} of the oracle's ({pct(oracle_share(r))}), counted reads "
                  f"moved {r['moved']}/{r['classified']} (frozen {r['frozen']}, reset {r['reset']}), "
                  f"{r['transitions']} switches, {r['resets']} resets")
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "macro.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(outdir, "macro.svg"), "w") as f:
        f.write(svg(kinds))
    print(f"# wrote {outdir}/macro.md and {outdir}/macro.svg")
    print("1..%d" % n)
    return 1 if failed else 0


sys.exit(main())
