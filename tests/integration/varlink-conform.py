#!/usr/bin/env python3
# varlink-conform.py INTERFACE TYPE: checks the JSON value on stdin against
# TYPE as the varlink interface file declares it, recursively: every field
# the daemon sends is declared, every non-optional field is there, and each
# value has the declared type. Prints one line per problem; exit 1 if any.
# Covers the IDL this project uses: int, float, string, bool, object, ?T,
# []T, [string]T and named types.
import json
import re
import sys


def parse(text):
    text = re.sub(r"#[^\n]*", "", text)
    types = {}
    for m in re.finditer(r"\btype\s+(\w+)\s*\((.*?)\)\s*(?=\btype\b|\bmethod\b|\berror\b|$)", text, re.S):
        fields = {}
        for part in m.group(2).split(","):
            part = part.strip()
            if part:
                name, t = (x.strip() for x in part.split(":", 1))
                fields[name] = t
        types[m.group(1)] = fields
    return types


def check(types, t, v, where, problems):
    if t.startswith("?"):
        if v is not None:
            check(types, t[1:], v, where, problems)
        return
    if v is None:
        problems.append(f"{where}: null, declared {t}")
    elif t.startswith("[]"):
        if not isinstance(v, list):
            problems.append(f"{where}: not an array")
            return
        for i, x in enumerate(v):
            check(types, t[2:], x, f"{where}[{i}]", problems)
    elif t.startswith("[string]"):
        if not isinstance(v, dict):
            problems.append(f"{where}: not a map")
            return
        for k, x in v.items():
            check(types, t[8:], x, f"{where}[{k}]", problems)
    elif t == "int":
        if not isinstance(v, int) or isinstance(v, bool):
            problems.append(f"{where}: {v!r} is not an int")
    elif t == "float":
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            problems.append(f"{where}: {v!r} is not a float")
    elif t == "string":
        if not isinstance(v, str):
            problems.append(f"{where}: {v!r} is not a string")
    elif t == "bool":
        if not isinstance(v, bool):
            problems.append(f"{where}: {v!r} is not a bool")
    elif t == "object":
        pass
    elif t in types:
        if not isinstance(v, dict):
            problems.append(f"{where}: not an object ({t})")
            return
        fields = types[t]
        for k in v:
            if k not in fields:
                problems.append(f"{where}.{k}: sent but not declared in {t}")
        for k, ft in fields.items():
            if k not in v:
                if not ft.startswith("?"):
                    problems.append(f"{where}.{k}: declared {ft} in {t}, not sent")
            else:
                check(types, ft, v[k], f"{where}.{k}", problems)
    else:
        problems.append(f"{where}: unknown type {t}")


def main():
    types = parse(open(sys.argv[1]).read())
    problems = []
    check(types, sys.argv[2], json.load(sys.stdin), sys.argv[2], problems)
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
