#!/usr/bin/env python3
"""The macro study's tables and plot, from one boot per kernel and reader
profile of tests/vm/guest/scenarios/macro.sh: the "# macro ..." and
"# trace ..." lines of its results and the instruction-counting plugin's
markers (two per phase on CPU 0, the workload's, and two on CPU 1, the
daemon's).

    macro-figure.py OUTDIR RESULTS PLUGINLOG [RESULTS PLUGINLOG ...]

Each phase's trace (the pages the workload allocated each second, the
counted reads' times, the daemon's thresholds) goes to the oracle
(tests/bench/oracle-trace, $ORACLE_TRACE): the best schedule any policy
could follow there, serving every read after a reader's first. A
strategy's saving is its share of coarse's allocator instructions per page
saved, and that share over the oracle's (the share of the pages it keeps
counting off for). Beside it, the bound without foresight: the oracle's
schedule when, after each reader's last read, one more at that reader's
last pace must be served too, the best a policy can do that cannot see
the future and serves every reader that keeps its pace.

Writes OUTDIR/macro.md (a table per kernel and profile) and OUTDIR/macro.svg
(per kernel, profile and strategy: the saving kept and the reads served),
and prints TAP sanity checks and the rows as "# figure:" lines."""
import html
import os
import re
import subprocess
import sys

MARK = re.compile(r"^mark vcpu=(\d+) label=5 insns=(\d+) filtered=(\d+)")
LINE = re.compile(r"^# macro (.*)$")
TRACE = re.compile(r"^# trace (.*)$")
ORACLE = os.environ.get("ORACLE_TRACE", "oracle-trace")

PROFILES = {
    "a": "a monitored host: a collector every 15 s and sadc every 60 s, both ignored",
    "b": "a, and numastat run twice, two minutes apart",
    "c": "a, and a counted delta reader every 10 s for the middle third",
    "d": "a, and a benchmark under numastatctl hold for the middle third",
}
DESCRIPTION = {
    "strict": "counting always on",
    "coarse": "counting always off",
    "kernel-auto": "the kernel's auto alone, armed once",
    "numastatd": "numastatd, its defaults (off_mode coarse)",
    "numastatd-auto": "numastatd, off_mode auto",
}


def words(text):
    return dict(w.split("=", 1) for w in re.findall(r"\S+=\S*", text))


def oracle(kv, sustain=None, dwell=None, no_foresight=False, framed=None):
    """The oracle's figures for one phase's trace, or None; sustain and
    dwell (µs) in place of the trace's own. no_foresight: the bound without
    foresight (one more read at each reader's last pace is served too)."""
    if not kv or not kv.get("rates"):
        return None
    interval = int(kv["interval"])
    coarse, strict, sustain0, dwell0 = kv["limits"].split(",")
    sustain = sustain0 if sustain is None else sustain
    dwell = dwell0 if dwell is None else dwell
    # A phase follows others (the daemon runs warm): no past binds its start.
    # framed=(before, window): as the daemon's own trace frames the phase,
    # from its start (which binds: on, a switch just then) `before` seconds
    # of nothing before the phase, `window` seconds in all.
    before, window = framed or (0, 0)
    lines = [f"interval {interval}"] + ([] if framed else ["start free"]) + [f"limits {coarse} {strict} {sustain} {dwell}"]
    lines += ["no foresight"] if no_foresight else []
    rates = kv["rates"].split(",")
    lines += ["rate 0"] * before
    lines += [f"rate {int(p) * 1e6 / interval}" for p in rates]
    lines += ["rate 0"] * max(0, window - before - len(rates))
    for r in kv.get("reads", "").split(","):
        if r:
            at, reader = r.split(":")
            lines.append(f"read {(int(at) + before * 1000) * 1000} {reader}")
    try:
        out = subprocess.run([ORACLE], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"# oracle: {e}", file=sys.stderr)
        return None
    return words(out.stdout)


def parse(results, plugin):
    phases, traces = [], {}
    with open(results, errors="replace") as f:
        for line in f:
            t = TRACE.match(line.strip())
            if t:
                kv = words(t.group(1))
                traces[kv.get("strategy")] = kv
                continue
            m = LINE.match(line.strip())
            if m:
                kv = words(m.group(1))
                kv["kind"] = re.search(r"kind=(.*?) seconds=", m.group(1)).group(1)
                phases.append(kv)
    marks = {0: [], 1: []}
    with open(plugin, errors="replace") as f:
        for line in f:
            m = MARK.match(line)
            if m and int(m.group(1)) in marks:
                marks[int(m.group(1))].append((int(m.group(2)), int(m.group(3))))
    for p in phases:
        p["trace"] = traces.get(p["strategy"])
        p["oracle"] = oracle(traces.get(p["strategy"]))
        p["bound"] = oracle(traces.get(p["strategy"]), no_foresight=True)
    return phases, marks, traces


def rows_for(phases, marks):
    rows = []
    for i, p in enumerate(phases):
        if 2 * i + 1 >= len(marks[0]) or 2 * i + 1 >= len(marks[1]):
            break
        (a0, f0), (b0, g0) = marks[0][2 * i], marks[0][2 * i + 1]
        (a1, _), (b1, _) = marks[1][2 * i], marks[1][2 * i + 1]
        pages = int(p["pages"])
        rows.append({
            "strategy": p["strategy"],
            "pages": pages,
            "insns": (b0 - a0) / pages if pages else 0.0,
            "alloc": (g0 - f0) / pages if pages else 0.0,
            "cpu1": (b1 - a1) / int(p["seconds"]),
            "g_served": int(p["guest_served"]), "g_unserved": int(p["guest_unserved"]),
            "g_first": int(p["guest_first"]),
            "transitions": int(p["transitions"]), "resets": int(p["resets"]), "arms": int(p["arms"]),
            "ticks": int(p.get("daemon_ticks", 0)),
            "oracle": p.get("oracle"),
            "bound": p.get("bound"),
            "daemon": (p.get("daemon_served", "-"), p.get("daemon_unserved", "-"), p.get("daemon_first_off", "-")),
            "ledger": (int(p.get("ledger_pages", 0)), int(p.get("ledger_pages_off", 0))),
            # The daemon's own figure (its best possible over its own trace:
            # this phase and its warm-up): window s, pages, best's off, its own off.
            "best": tuple(int(p[k]) for k in ("best_window", "best_pages", "best_pages_off", "best_own_off"))
            if "best_window" in p else None,
            # The oracle over the phase as the daemon's own trace frames it.
            "framed": oracle(p.get("trace"), framed=(int(p["best_from"]), int(p["best_window"])))
            if "best_from" in p else None,
        })
    return rows


def kept(rows, r, key):
    on = next((x[key] for x in rows if x["strategy"] == "strict"), None)
    off = next((x[key] for x in rows if x["strategy"] == "coarse"), None)
    if on is None or off is None or on - off <= 0:
        return None
    return 100.0 * (on - r[key]) / (on - off)


def oracle_share(r, which="oracle"):
    """The share of the pages the oracle (or the bound without foresight)
    keeps counting off for, in % (coarse's: 100%)."""
    o = r.get(which)
    return 100.0 * float(o["share_off"]) if o else None


def pages_off(r):
    """The share of pages allocated with counting off, in %: by definition
    for strict and coarse, by the daemon's ledger for numastatd."""
    if r["strategy"] == "strict":
        return 0.0
    if r["strategy"] == "coarse":
        return 100.0
    pages, off = r["ledger"]
    return 100.0 * off / pages if pages else None


def pages_of_oracle(r, which="oracle"):
    """The same over the oracle's (or the bound's without foresight):
    exact, where instructions are noisy."""
    p, o = pages_off(r), oracle_share(r, which)
    return None if p is None or not o else 100.0 * p / o


def kept_of_oracle(rows, r, key):
    k, o = kept(rows, r, key), oracle_share(r)
    return None if k is None or not o else 100.0 * k / o


# How far the daemon's own best possible (its 24-hour trace: pgalloc_* in
# slots of its sampling interval, the counted reads it saw, the holds) may
# be from the study's oracle over the same stretch (the phase's trace: the
# workload's own pages, the readers' own reads, framed as the daemon's
# trace frames it: from the daemon's start, whose dwell binds, with the
# warm-up's nothing before it), in points of the share of pages counted
# off. The study's own oracle is free at the phase's start (the daemon
# runs warm, the pressure may have been sustained already): it keeps off
# what the daemon's start forbids, and is not the figure to compare.
BEST_MARGIN_POINTS = 5.0


def best_share(r):
    """The daemon's own best possible: the share of its pages the best
    schedule keeps counting off for, in %."""
    b = r.get("best")
    return 100.0 * b[2] / b[1] if b and b[1] else None


def own_of_best(r):
    b = r.get("best")
    return 100.0 * b[3] / b[2] if b and b[2] else None


def pct(v):
    return "n/a" if v is None else f"{v:.0f}%"


def served_text(r):
    n = r["g_served"] + r["g_unserved"]
    return f"{r['g_served']} of {n}" if n else "n/a"


def table(kind, profile, rows, seconds):
    key = "alloc" if any(r["alloc"] for r in rows) else "insns"
    out = [f"**{kind}, profile {profile}**: {PROFILES.get(profile, '')} ({seconds} s per strategy, the workload "
           f"quiet from 50% to 70%)", "",
           "| strategy | allocator instructions per page | all instructions per page | saving kept: of coarse's "
           "| the oracle keeps | of the oracle's | pages counted off (the daemon's ledger) | of the oracle's "
           "| the bound without foresight keeps | of the bound's "
           "| counted reads served (their own check) "
           "| the daemon's figure: served / unserved / first reads off | switches | counter resets "
           "| CPU 1 instructions/s | daemon CPU time |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cpu_time = f"{r['ticks'] * 10} ms" if r["ticks"] else "-"     # clock ticks of 10 ms
        alloc = f"{r['alloc']:.1f}" if key == "alloc" else "n/a"
        out.append(f"| {r['strategy']} ({DESCRIPTION.get(r['strategy'], '')}) | {alloc} | {r['insns']:.1f} | "
                   f"{pct(kept(rows, r, key))} | {pct(oracle_share(r))} | {pct(kept_of_oracle(rows, r, key))} | "
                   f"{pct(pages_off(r))} | {pct(pages_of_oracle(r))} | "
                   f"{pct(oracle_share(r, 'bound'))} | {pct(pages_of_oracle(r, 'bound'))} | "
                   f"{served_text(r)} | {' / '.join(r['daemon'])} | {r['transitions']} | {r['resets']} | "
                   f"{r['cpu1'] / 1e6:.2f}M | {cpu_time} |")
    return out, key


SUSTAINS = (0, 10, 30)
DWELLS = (0, 30, 120)


def thresholds_table(title, kv):
    """What sustain and min_dwell cost even the best possible: the
    oracle's share of pages counted off over one phase's trace (its
    counted reads too) under each pair, the shipped defaults marked."""
    out = [f"What the thresholds cost the best possible, {title} (the numastatd phase's trace): the oracle's "
           "share of pages counted off", "",
           "| sustain \\ min_dwell | " + " | ".join(f"{d}s" for d in DWELLS) + " |",
           "|---|" + "---|" * len(DWELLS)]
    for su in SUSTAINS:
        cells = []
        for d in DWELLS:
            o = oracle(kv, sustain=su * 1000000, dwell=d * 1000000)
            v = pct(100.0 * float(o["share_off"])) if o else "n/a"
            cells.append(f"**{v}**" if (su, d) == (10, 30) else v)
        out.append(f"| {su}s | " + " | ".join(cells) + " |")
    return out


def svg(blocks):
    """Per kernel and profile a block; per strategy two bars: saving kept
    (of the oracle's), reads served."""
    width, row_h, label_w, bar_w, gap = 880, 22, 170, 250, 110
    y, parts = 48, []
    for title, rows, key in blocks:
        parts.append(f'<text x="10" y="{y}" font-weight="bold">{html.escape(title)}</text>')
        y += 18
        parts.append(f'<text x="{label_w}" y="{y}" font-size="11">saving kept, % of the oracle\'s '
                     f'({"allocator" if key == "alloc" else "all"} instructions)</text>')
        parts.append(f'<text x="{label_w + bar_w + gap}" y="{y}" font-size="11">counted reads served '
                     f'(their own check)</text>')
        y += 10
        for r in rows:
            y += row_h
            k = kept_of_oracle(rows, r, key)
            n = r["g_served"] + r["g_unserved"]
            served = 100.0 * r["g_served"] / n if n else 0.0
            parts.append(f'<text x="10" y="{y}" font-size="12">{html.escape(r["strategy"])}</text>')
            kv = max(0.0, min(100.0, k if k is not None else 0.0))
            parts.append(f'<rect x="{label_w}" y="{y - 14}" width="{bar_w * kv / 100:.1f}" height="16" '
                         f'fill="#4a7bd0"/>')
            parts.append(f'<text x="{label_w + bar_w * kv / 100 + 4:.1f}" y="{y}" font-size="11">{pct(k)}</text>')
            x2 = label_w + bar_w + gap
            parts.append(f'<rect x="{x2}" y="{y - 14}" width="{bar_w * served / 100:.1f}" height="16" '
                         f'fill="#3ca06a"/>')
            parts.append(f'<text x="{x2 + bar_w * served / 100 + 4:.1f}" y="{y}" font-size="11">'
                         f'{served_text(r)}</text>')
        y += 40
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" '
            f'font-family="sans-serif" font-size="13">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n'
            f'<text x="10" y="20" font-size="15">numastatd: what each strategy saves (blue, of the best possible) '
            f'and serves (green)</text>\n' + "\n".join(parts) + "\n</svg>\n")


def main():
    outdir, pairs = sys.argv[1], sys.argv[2:]
    n = failed = 0
    md, blocks = ["# The macro study", ""], []

    def check(cond, what):
        nonlocal n, failed
        n += 1
        print(("ok" if cond else "not ok"), n, "-", what)
        failed += 0 if cond else 1

    for results, plugin in zip(pairs[0::2], pairs[1::2]):
        phases, marks, traces = parse(results, plugin)
        rows = rows_for(phases, marks)
        kind = phases[0]["kind"] if phases else os.path.basename(results)
        profile = phases[0].get("profile", "?") if phases else "?"
        title = f"{kind}, profile {profile}"
        check(phases and len(rows) == len(phases),
              f"{title}: markers for every strategy ({len(rows)} of {len(phases)})")
        if not rows:
            continue
        check(all(200 < r["insns"] < 1e6 for r in rows), f"{title}: instructions per page within sanity bounds")
        check(all(r["oracle"] for r in rows), f"{title}: the oracle planned every phase's trace")
        check(all(r["oracle"]["served"] == r["oracle"]["servable"] for r in rows if r["oracle"]),
              f"{title}: the oracle serves every servable read")
        check(all(r["bound"] and float(r["bound"]["share_off"]) <= float(r["oracle"]["share_off"]) + 1e-9
                  for r in rows if r["oracle"]),
              f"{title}: the bound without foresight keeps no more off than the oracle")
        for r in rows:
            if not r["strategy"].startswith("numastatd"):
                continue
            b, o = best_share(r), oracle_share(r, "framed")
            print(f"# figure: macro {title} {r['strategy']}: the daemon's own best possible keeps "
                  f"{pct(b)} of its pages counted off over {r['best'][0] if r['best'] else '?'} s; the study's "
                  f"oracle over the same stretch {pct(o)} (over the phase alone, free at its start: "
                  f"{pct(oracle_share(r))}); the daemon did {pct(own_of_best(r))} of its best")
            check(b is not None and o is not None and abs(b - o) <= BEST_MARGIN_POINTS,
                  f"{title} {r['strategy']}: the daemon's own best possible agrees with the study's oracle over "
                  f"the same stretch within {BEST_MARGIN_POINTS:.0f} points ({pct(b)}, {pct(o)})")
        lines, key = table(kind, profile, rows, phases[0]["seconds"])
        md += lines + [""]
        if traces.get("numastatd"):
            md += thresholds_table(title, traces["numastatd"]) + [""]
        blocks.append((title, rows, key))
        for r in rows:
            alloc = f"{r['alloc']:.1f}" if key == "alloc" else "n/a"
            print(f"# figure: macro {title} {r['strategy']}: {alloc} allocator / {r['insns']:.1f} all "
                  f"instructions per page, saving kept {pct(kept(rows, r, key))} of coarse's, "
                  f"{pct(kept_of_oracle(rows, r, key))} of the oracle's ({pct(oracle_share(r))}), pages counted off "
                  f"{pct(pages_off(r))} ({pct(pages_of_oracle(r))} of the oracle's, "
                  f"{pct(pages_of_oracle(r, 'bound'))} of the bound without foresight's "
                  f"{pct(oracle_share(r, 'bound'))}), counted reads "
                  f"served {served_text(r)} (the daemon: {' / '.join(r['daemon'])}), {r['transitions']} switches, "
                  f"{r['resets']} resets")
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "macro.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(outdir, "macro.svg"), "w") as f:
        f.write(svg(blocks))
    print(f"# wrote {outdir}/macro.md and {outdir}/macro.svg")
    print("1..%d" % n)
    return 1 if failed else 0


sys.exit(main())
