#!/bin/bash
# The docs and the tree agree: every configuration section and key, every
# cause, every history kind and every varlink method, read from the code
# (the tables the daemon itself uses), is named where a user looks for it.
# A key, a cause or a method added without its words fails here. And the
# README stays a five-minute read: short, its links to docs/ resolve, and
# each study in docs/ says the command that reproduces its figures.
SRCDIR=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
n=0 failed=0
check() {  # check DESCRIPTION COMMAND...
        local d=$1
        shift
        n=$((n + 1))
        if "$@"; then
                echo "ok $n - $d"
        else
                echo "not ok $n - $d"
                failed=$((failed + 1))
        fi
}
# man_text FILE: the page as words ("\-" as "-", font escapes dropped).
man_text() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(em/--/g' "$1"; }
# between TEXT START END: the lines from the first matching START up to
# (not including) the next line matching END.
between() { awk -v s="$2" -v e="$3" 'on && $0 ~ e { exit } on { print } !on && $0 ~ s { on = 1; print }' <<<"$1"; }
# From the code: the tables, one name per line.
table_strings() { sed -n "/$2/,/^};/p" "$SRCDIR/$1" | grep -o '= "[a-z-]*"' | tr -d '= "'; }

conf5=$(man_text "$SRCDIR/man/numastatd.conf.5")
d8=$(man_text "$SRCDIR/man/numastatd.8")
ctl1=$(man_text "$SRCDIR/man/numastatctl.1")
readme=$(cat "$SRCDIR/README.md")

# ---- configuration: every section has its man page section, every key its entry ----
items=$(sed -n '/^static const ConfigItem items\[\] = {/,/^};/p' "$SRCDIR/daemon/conf.c" |
        sed -n 's/^ *{ "\([a-z]*\)", *"\([a-z_]*\)".*/\1 \2/p')
check "the config table is found in daemon/conf.c" test -n "$items"
syntax=$(between "$conf5" '^\.SH SYNTAX' '^\.SH ')
for section in $(cut -d' ' -f1 <<<"$items" | uniq); do
        upper=$(tr '[:lower:]' '[:upper:]' <<<"$section")
        check "numastatd.conf(5) has a section for [$section]" grep -qx ".SH \[$upper\] SECTION" <<<"$conf5"
        check "numastatd.conf(5) SYNTAX names [$section]" grep -qF "[$section]" <<<"$syntax"
        part=$(between "$conf5" "^\\.SH \\[$upper\\] SECTION" '^\.SH ')
        for key in $(awk -v s="$section" '$1 == s { print $2 }' <<<"$items"); do
                check "numastatd.conf(5) [$section] documents $key" grep -qE "^\.(B|BI|BR) $key=" <<<"$part"
                check "the shipped numastatd.conf lists $key under [$section]" \
                        bash -c "sed -n '/^\[$section\]/,/^\[/p' '$SRCDIR/conf/numastatd.conf' | grep -qE '^#? *$key ?='"
        done
done

# ---- causes: numastatd(8)'s list and the journal field's ----
causes=$(table_strings daemon/core/cause.c 'cause_table\[')
check "the cause table is found in daemon/core/cause.c" test -n "$causes"
decision=$(between "$d8" '^Every decision has a cause' '^\.PP')
field=$(between "$d8" '^\.B NUMASTATD_CAUSE=' '^\.TP')
for c in $causes; do
        check "numastatd(8) lists cause $c where every decision's cause is listed" \
                grep -qE "^\.(B|BR|RB) (\( )?$c( |,|\.|$)" <<<"$decision"
        check "numastatd(8) lists cause $c under NUMASTATD_CAUSE=" grep -qE "^\.(B|BR|RB) (\( )?$c( |,|\.|$)" <<<"$field"
done

# ---- history kinds: numastatctl(1)'s history ----
kinds=$(table_strings daemon/core/history.c 'kind_table\[')
check "the transition kind table is found in daemon/core/history.c" test -n "$kinds"
history=$(between "$ctl1" '^\.B history$' '^\.TP')
for k in $kinds; do
        # As a bold word: "kernel" is in the paragraph's prose anyway.
        check "numastatctl(1) history names the kind $k" grep -qE "^\.(B|BR|RB) (\( )?$k( |,|$)" <<<"$history"
done

# ---- varlink methods: numastatd(8) and the README ----
methods=$(sed -n 's/^method \([A-Za-z]*\)(.*/\1/p' "$SRCDIR/varlink/io.numastatd.varlink")
check "the methods are found in the interface file" test -n "$methods"
varlink_readme=$(between "$readme" '^### Varlink' '^##')
for m in $methods; do
        check "numastatd(8) documents io.numastatd.$m" grep -qE "^\.B $m\(" <<<"$d8"
        check "the README's Varlink section names $m" grep -qF "\`$m\`" <<<"$varlink_readme"
done

# ---- the shipped catalogue: numastatd.conf(5) names every entry, and only those ----
entries=$(cd "$SRCDIR/conf/readers.d" && ls -- *.conf | sed 's/\.conf$//')
check "the shipped entries are found in conf/readers.d" test -n "$entries"
# Each bullet's list: its text after its first ":", parentheses dropped,
# split at , ; and .
shipped=$(between "$conf5" '^The shipped entries' '^The table of' |
        awk '/^\.IP / { printf "\n"; on = 1; next } on && !/^\.[A-Z]*$/ { sub(/^\.[A-Z]+ /, ""); printf "%s ", $0 }')
listed=$(sed -e 's/([^)]*)//g' -e 's/^[^:]*: //' <<<"$shipped" | tr ',;.' '\n\n\n' | sed -E 's/^ +//; s/ +$//' |
        grep -v '^$' | sort)
is_entry() { grep -qxF "$1" <<<"$entries"; }
for e in $entries; do
        check "numastatd.conf(5) lists the shipped entry $e" grep -qxF "$e" <<<"$listed"
done
for l in $listed; do
        check "numastatd.conf(5) lists $l, a shipped entry" is_entry "$l"
done

# ---- the README and docs/ ----
# At most 260 lines: reference belongs in the man pages, studies in docs/.
readme_lines=$(wc -l <"$SRCDIR/README.md")
check "README.md has at most 260 lines ($readme_lines)" test "$readme_lines" -le 260
# Every docs/ file the README links exists, and so does every file one docs/
# page links in docs/.
links=$(grep -o '](docs/[^)#]*' "$SRCDIR/README.md" | sed 's/^](//' | sort -u)
check "README.md links docs/" test -n "$links"
for l in $links; do
        check "$l, linked from README.md, exists" test -f "$SRCDIR/$l"
done
for f in "$SRCDIR"/docs/*.md; do
        for l in $(grep -o '](\(\./\)\?[a-z0-9-]*\.md' "$f" | sed 's/^](//' | sort -u); do
                check "docs/$l, linked from docs/$(basename "$f"), exists" test -f "$SRCDIR/docs/$l"
        done
done
# Each study names the command that reproduces its figures in a paragraph
# that starts with "Reproduce:". Every docs/ page is a study but these.
reference_docs="install.md layout.md testing.md"
reproduce_re='make (-C build )?(bench-[a-z]+|check-vm|check TESTS=)|scripts/[a-z-]+\.sh|tests/[a-z/-]+\.sh'
for f in "$SRCDIR"/docs/*.md; do
        name=$(basename "$f")
        grep -qxF "$name" <<<"$(tr ' ' '\n' <<<"$reference_docs")" && continue
        reproduce=$(awk '/^Reproduce:/ { on = 1 } on && /^$/ { exit } on' "$f" | tr '\n' ' ')
        check "docs/$name names the command that reproduces it" grep -qE "$reproduce_re" <<<"$reproduce"
done

echo "1..$n"
[ $failed -eq 0 ]
