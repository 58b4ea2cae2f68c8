#!/usr/bin/env python3
"""File-level call graph of the daemon: which file calls which, and the
cycles among them (strongly connected components of more than one file).

    scripts/callgraph.py [--cc CC] [--scc] SRCDIR BUILDDIR

Compiles each daemon/**/*.c with GCC's -fcallgraph-info (direct calls only:
a call through a pointer, which is how sd-event and every callback reach a
handler, is no edge) and prints, one per line, "FILE -> FILE" for every
file-to-file edge, or with --scc each component of more than one file,
largest first: "N files: A B C ...". Exits 2 when a file does not compile.
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

NODE = re.compile(r'node: \{ title: "([^"]+)" label: "[^"\\]*\\n([^":]+):\d+:\d+"( shape : ellipse)? \}')
EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')


def compile_all(cc, cppflags, srcdir, files):
    """{file: (defined functions, [(caller, callee)])} from each .ci file."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, f in enumerate(files):
            obj = os.path.join(tmp, f"{i}.o")
            cmd = [cc, "-std=gnu11", "-O0", "-w", "-fcallgraph-info", "-c", f, "-o", obj] + cppflags
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                sys.stderr.write(f"callgraph: {os.path.relpath(f, srcdir)} does not compile:\n{r.stdout}")
                sys.exit(2)
            text = open(os.path.join(tmp, f"{i}.ci")).read()
            defined = {m.group(1) for m in NODE.finditer(text) if not m.group(3)}
            edges = EDGE.findall(text)
            out[os.path.relpath(f, srcdir)] = (defined, edges)
    return out


def file_graph(units):
    where = {}
    for f, (defined, _) in units.items():
        for name in defined:
            where[name] = f
    graph = {f: set() for f in units}
    for f, (_, edges) in units.items():
        for _, callee in edges:
            g = where.get(callee)
            if g and g != f:
                graph[f].add(g)
    return graph


def sccs(graph):
    """Tarjan's algorithm, iterative."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def cppflags(srcdir, builddir):
    """The build's include paths (config.h and the generated headers from
    BUILDDIR); the defines' values do not matter to a call graph."""
    flags = ["-DHAVE_CONFIG_H", "-include", os.path.join(builddir, "config.h"),
             "-I" + os.path.join(builddir, "daemon"), "-DSYSCONFDIR=\"/etc\"",
             "-DKNOWN_READERS_ETC_DIR=\"/etc\"", "-DKNOWN_READERS_LIB_DIR=\"/usr/lib\""]
    for d in ("lib", "daemon", "daemon/core", "daemon/sources", "daemon/effects", "daemon/service", "daemon/fs"):
        flags.append("-I" + os.path.join(srcdir, d))
    r = subprocess.run(["pkg-config", "--cflags", "libsystemd", "json-c", "libnl-3.0", "libnl-genl-3.0", "inih"],
                       stdout=subprocess.PIPE, text=True)
    return flags + shlex.split(r.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--scc", action="store_true")
    ap.add_argument("srcdir")
    ap.add_argument("builddir")
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.srcdir, "daemon", "**", "*.c"), recursive=True))
    graph = file_graph(compile_all(a.cc, cppflags(a.srcdir, a.builddir), a.srcdir, files))
    if a.scc:
        for comp in sorted((c for c in sccs(graph) if len(c) > 1), key=lambda c: (-len(c), c)):
            print(f"{len(comp)} files: {' '.join(comp)}")
    else:
        for f in sorted(graph):
            for g in sorted(graph[f]):
                print(f"{f} -> {g}")


if __name__ == "__main__":
    main()
