#!/usr/bin/env python3
# Compiles a varlink interface file for systemd's sd-varlink (libsystemd
# >= 257), which takes an interface as C structures (sd-varlink-idl.h) and
# has no public parser for the text. The .varlink file stays the one
# description: this runs at build time, comments included, so what
# GetInterfaceDescription serves says what the file says.
#
#   gen-sd-interface.py IN.varlink OUT.c
#   gen-sd-interface.py --same-symbols A.varlink B.varlink
#
# The second form checks that two descriptions declare the same types,
# methods and errors with the same fields (comments, layout and symbol order
# aside), e.g. sd_varlink_idl_format's text against the file: exit 0 if so,
# 1 (and the first difference) if not, 2 if one does not parse.
# Both forms use the one parser below.
import collections
import os
import re
import sys

TOKEN = re.compile(r"(#[^\n]*)|(->|\[string\]|\[\]|[?():,])|([A-Za-z](?:[A-Za-z0-9_.]|-(?!>))*)|(\s+)")
SCALARS = {"bool": "BOOL", "int": "INT", "float": "FLOAT", "string": "STRING", "object": "OBJECT"}
FLAGS = {"?": "NULLABLE", "[]": "ARRAY", "[string]": "MAP"}
# sd-varlink has one flag set per field, nullable outermost: ?[]T is a
# field, []?T or [][]T is not.
FLAG_SETS = [(), ("?",), ("[]",), ("[string]",), ("?", "[]"), ("?", "[string]")]
INDENT = " " * 8

# kind: a scalar, "named" (a type of the interface, in name), or inline
# "enum" / "struct" (members: Fields; an enum value's type is None).
Type = collections.namedtuple("Type", "flags kind name members")
Field = collections.namedtuple("Field", "name type comments line")
# body: a type's Type; a method's or error's (input) Fields. out: a method's output.
Symbol = collections.namedtuple("Symbol", "kind name comments line body out")


class IdlError(Exception):
    pass


class Parser:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.path, self.i, self.tokens = path, 0, []  # (token, [(comment, line)] before it, line)
        pending, pos = [], 0
        while pos < len(text):
            m = TOKEN.match(text, pos)
            line = text.count("\n", 0, pos) + 1
            if not m:
                self.fail_at(line, "cannot read %r" % text[pos:pos + 20])
            pos = m.end()
            if m.group(1) is not None:
                pending.append((m.group(1)[1:].removeprefix(" ").rstrip(), line))
            elif m.group(4) is None:
                self.tokens.append((m.group(2) or m.group(3), pending, line))
                pending = []
        if pending:  # sd-varlink keeps a comment only before something
            self.fail_at(pending[0][1], "a comment at the end of the file describes nothing")

    def fail_at(self, line, msg):
        raise IdlError("%s:%d: %s" % (self.path, line, msg))

    def line(self):
        return self.tokens[min(self.i, len(self.tokens) - 1)][2] if self.tokens else 1

    def peek(self):
        return self.tokens[self.i][0] if self.i < len(self.tokens) else None

    def take(self, want=None, pattern=None, comments_ok=False):
        """The next token and the comments before it. Comments are allowed
        only where sd-varlink can keep them (before the interface, a symbol,
        a field, an enum value): refused elsewhere rather than lost."""
        if self.i >= len(self.tokens):
            self.fail_at(self.line(), "unexpected end, expected %s" % (want or "more"))
        tok, comments, line = self.tokens[self.i]
        if (want and tok != want) or (pattern and not re.fullmatch(pattern, tok)):
            self.fail_at(line, "expected %s, found %r" % (repr(want) if want else "a name", tok))
        if comments and not comments_ok:
            self.fail_at(comments[0][1], "sd-varlink cannot keep a comment before %r" % tok)
        self.i += 1
        return tok, [c for c, _ in comments], line

    def type_(self):
        line, flags = self.line(), []
        while self.peek() in FLAGS:
            flags.append(self.take()[0])
        if tuple(flags) not in FLAG_SETS:
            self.fail_at(line, "%s...: sd-varlink has only ?T, []T, [string]T, ?[]T, ?[string]T" % "".join(flags))
        if self.peek() == "(":
            kind, members = self.members()
            # An inline struct becomes an anonymous C symbol; one inside it
            # would need that again: name the type instead.
            if kind == "struct" and any(f.type.kind in ("enum", "struct") for f in members):
                self.fail_at(line, "an inline struct or enum inside an inline struct is not supported: name the type")
            return Type(tuple(flags), kind, None, members)
        name = self.take(pattern=r"[A-Za-z][A-Za-z0-9]*")[0]
        return Type(tuple(flags), name if name in SCALARS else "named", name, None)

    def members(self):
        """'(' fields or enum values ')' -> ("struct" | "enum", [Field]); () is a struct."""
        self.take("(")
        kind, out = None, []
        while self.peek() != ")":
            name, comments, line = self.take(pattern=r"[A-Za-z_][A-Za-z0-9_]*", comments_ok=True)
            this = "struct" if self.peek() == ":" else "enum"
            if kind not in (None, this):
                self.fail_at(line, "%s: enum values and fields mixed" % name)
            if any(f.name == name for f in out):
                self.fail_at(line, "%s given twice" % name)
            kind = this
            if this == "struct":
                self.take(":")
            out.append(Field(name, self.type_() if this == "struct" else None, comments, line))
            if self.peek() != ")":
                self.take(",")
        self.take(")")
        return kind or "struct", out

    def fields(self):
        line, (kind, fields) = self.line(), self.members()
        if kind != "struct":
            self.fail_at(line, "expected fields (name: type), found enum values")
        return fields

    def interface(self):
        """-> (interface name, its comments, [Symbol])"""
        head = self.take("interface", comments_ok=True)[1]
        iname = self.take(pattern=r"[A-Za-z][A-Za-z0-9-]*(\.[A-Za-z0-9][A-Za-z0-9-]*)+")[0]
        symbols = []
        while self.peek() is not None:
            kind, comments, line = self.take(pattern="type|method|error", comments_ok=True)
            name = self.take(pattern=r"[A-Z][A-Za-z0-9]*")[0]
            if any(s.name == name for s in symbols):
                self.fail_at(line, "%s %s: the name is taken already" % (kind, name))
            if kind == "type":
                body_kind, members = self.members()
                symbols.append(Symbol(kind, name, comments, line, Type((), body_kind, name, members), None))
            else:
                fields, out = self.fields(), None
                if kind == "method":
                    self.take("->")
                    out = self.fields()
                symbols.append(Symbol(kind, name, comments, line, fields, out))
        return iname, head, symbols


def c_string(s):
    """A C string literal. Comments hold backslashes and quotes (the C
    escapes they describe); "??" is split so that no trigraph warning fires."""
    out, prev = [], ""
    for ch in s:
        if ch in '\\"' or (ch == "?" and prev == "?"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append("\\%03o" % ord(ch))
        else:
            out.append(ch)  # UTF-8 (µ) passes as it is
        prev = ch
    return '"' + "".join(out) + '"'


def c_comment(macro, text):
    """A comment macro. sd-varlink's formatter splits a comment into lines
    with extract_first_word(), which takes a backslash as escaping the next
    character and drops it: doubled, the served text has the file's. It
    prints no line for "", "#  " for " ": an empty line stays a line."""
    return "SD_VARLINK_%s_COMMENT(%s)" % (macro, c_string(text.replace("\\", "\\\\") or " "))


def c_call(macro, args, items):
    """MACRO(args,\n        item,\n        item); the layout of systemd's own interfaces."""
    return "%s(%s%s);" % (macro, ", ".join(args), "".join(",\n" + INDENT + x for x in items))


def members(sym):
    return sym.body.members if sym.kind == "type" else sym.body + (sym.out or [])


def c_fields(fields, direction, hoisted):
    """Initializers for fields ("FIELD", "INPUT" or "OUTPUT"), each after its
    comments. The header has no macro for an inline enum or struct: it
    becomes an anonymous symbol in hoisted, which the field points to."""
    items = []
    for f in fields:
        items += [c_comment("FIELD", c) for c in f.comments]
        t = f.type
        if t is None:
            items.append("SD_VARLINK_DEFINE_ENUM_VALUE(%s)" % f.name)
            continue
        flags = "|".join("SD_VARLINK_" + FLAGS[x] for x in t.flags) or "0"
        if t.kind in SCALARS:
            items.append("SD_VARLINK_DEFINE_%s(%s, SD_VARLINK_%s, %s)" % (direction, f.name, SCALARS[t.kind], flags))
        elif t.kind == "named":
            items.append("SD_VARLINK_DEFINE_%s_BY_TYPE(%s, %s, %s)" % (direction, f.name, t.name, flags))
        else:
            anon = "vl_inline_%d" % (len(hoisted) + 1)
            inner = ",\n".join(INDENT * 2 + x for x in c_fields(t.members, "FIELD", hoisted) + ["{}"])
            hoisted.append("static const sd_varlink_symbol %s = {\n"
                           "        .symbol_type = SD_VARLINK_%s_TYPE,\n"
                           "        .fields = {\n%s\n        },\n};" % (anon, t.kind.upper(), inner))
            items.append("{ .name = %s, .field_type = SD_VARLINK_%s, .field_flags = %s, .field_direction = "
                         "SD_VARLINK_%s, .symbol = &%s }" % (c_string(f.name), t.kind.upper(), flags,
                                                            "REGULAR" if direction == "FIELD" else direction, anon))
    return items


def type_order(path, symbols):
    """The types in an order where each comes after those it takes the
    address of (source order where free), and those a cycle needs declared first."""
    types = {s.name: s for s in symbols if s.kind == "type"}

    def refs(fields):
        for f in fields:
            if f.type and f.type.kind == "named":
                if f.type.name not in types:
                    raise IdlError("%s:%d: %s: no type %s in the interface" % (path, f.line, f.name, f.type.name))
                yield f.type.name
            elif f.type and f.type.kind == "struct":
                yield from refs(f.type.members)

    order, forward, state = [], [], {}

    def visit(name):
        if state.get(name) == "open":  # a cycle: its address is taken before it is defined
            forward.append(name)
        if name not in state:
            state[name] = "open"
            for r in refs(members(types[name])):
                visit(r)
            state[name] = "done"
            order.append(types[name])

    for s in symbols:
        list(refs(members(s)))  # every reference checked, methods' and errors' too
        if s.kind == "type":
            visit(s.name)
    return order, sorted(set(forward))


def generate(src, dst):
    iname, head, symbols = Parser(src).interface()
    order, forward = type_order(src, symbols)
    # Named from the tree's top (varlink/io.numastatd.varlink) wherever make runs.
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rel = os.path.relpath(os.path.abspath(src), top)
    c = ["/* Generated from %s by varlink/gen-sd-interface.py: do not edit. */"
         % (os.path.basename(src) if rel.startswith("..") else rel),
         "#include <systemd/sd-varlink-idl.h>", ""]
    c += ["static const sd_varlink_symbol vl_type_%s;" % t for t in forward] + [""] * bool(forward)
    # Symbols are static: only the interface is for others (the daemon
    # declares it in interface-sd.h; this file is also made from test files).
    hoisted = []  # one list, numbering the anonymous symbols across the file
    for s in order + [s for s in symbols if s.kind != "type"]:
        first = len(hoisted)
        if s.kind == "type":
            macro, args = "SD_VARLINK_DEFINE_%s_TYPE" % s.body.kind.upper(), [s.name]
            items = c_fields(s.body.members, "FIELD", hoisted)
        elif s.kind == "method":
            # No flags: sd-varlink refuses a call only for lacking a "more"
            # a method requires, and the text cannot say which methods stream
            # (Monitor, Hold). SD_VARLINK_SUPPORTS_MORE would only add a line
            # to the served text that the file does not have.
            macro, args = "SD_VARLINK_DEFINE_METHOD", [s.name]
            items = c_fields(s.body, "INPUT", hoisted) + c_fields(s.out, "OUTPUT", hoisted)
        else:
            macro, args = "SD_VARLINK_DEFINE_ERROR", [s.name]
            items = c_fields(s.body, "FIELD", hoisted)
        c += [h + "\n" for h in hoisted[first:]] + ["static " + c_call(macro, args, items), ""]
    entries = [c_comment("INTERFACE", x) for x in head]
    for s in symbols:
        entries += [c_comment("SYMBOL", x) for x in s.comments]
        entries.append("&vl_%s_%s" % (s.kind, s.name))
    c.append(c_call("SD_VARLINK_DEFINE_INTERFACE", [re.sub(r"[^A-Za-z0-9]", "_", iname), c_string(iname)], entries))
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n".join(c) + "\n")


def render(t):
    if t.kind in ("enum", "struct"):
        return "".join(t.flags) + "(" + ", ".join(render_member(f) for f in t.members) + ")"
    return "".join(t.flags) + t.name


def render_member(f):
    return f.name if f.type is None else "%s: %s" % (f.name, render(f.type))


def signature(s):
    """A symbol as what --same-symbols compares: its kind and its members as
    text (a method's outputs after "->"), comments and layout dropped."""
    if s.kind == "type":
        return [s.kind] + [render_member(f) for f in s.body.members]
    out = ["->"] + [render_member(f) for f in s.out] if s.kind == "method" else []
    return [s.kind] + [render_member(f) for f in s.body] + out


def same_symbols(a, b):
    def table(path):
        iname, _, symbols = Parser(path).interface()
        return iname, {s.name: signature(s) for s in symbols}
    (ia, ta), (ib, tb) = table(a), table(b)
    if ia != ib:
        print("interface %s in %s, %s in %s" % (ia, a, ib, b))
        return 1
    for name in list(ta) + [n for n in tb if n not in ta]:
        x, y = ta.get(name), tb.get(name)
        if x == y:
            continue
        if x is None or y is None:
            print("%s %s is in %s only" % ((x or y)[0], name, a if y is None else b))
            return 1
        i = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
        what = lambda parts: repr(parts[i]) if i < len(parts) else "nothing more"
        print("%s %s: %s in %s, %s in %s" % (x[0], name, what(x), a, what(y), b))
        return 1
    return 0


if __name__ == "__main__":
    compare = len(sys.argv) == 4 and sys.argv[1] == "--same-symbols"
    if not compare and len(sys.argv) != 3:
        sys.exit("usage: gen-sd-interface.py IN.varlink OUT.c | --same-symbols A.varlink B.varlink")
    try:
        sys.exit(same_symbols(*sys.argv[2:]) if compare else generate(*sys.argv[1:]))
    except (IdlError, OSError) as e:
        print(e, file=sys.stderr)
        sys.exit(2 if compare else 1)
