#!/bin/bash
# The one rule of the layout: the modules of daemon/core/ are pure. They
# include only the C library's headers that do no I/O, a few pure parsing
# libraries, each other, and lib/'s pure helpers; they call no I/O; and
# each is tested directly (tests/unit/test-NAME.c). A core module that
# reaches for a file, a socket, sd-event or a source's or effect's header
# fails here.
SRCDIR=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
CORE=$SRCDIR/daemon/core
# <stdio.h> for snprintf and open_memstream (no file is opened: see the
# call check below); <time.h> for localtime_r/strftime of a caller's time;
# <ini.h> parses a stream the caller opened.
SYSTEM="stdbool.h stddef.h stdint.h inttypes.h stdarg.h stdio.h stdlib.h string.h strings.h errno.h limits.h
        math.h ctype.h fnmatch.h regex.h time.h sys/types.h ini.h"
LIB="macro.h strutil.h string-table.h hold-limits.h"
# Calls that do I/O or ask the system (open_memstream is a buffer).
IO_CALLS='\b(fopen|fdopen|freopen|open|openat|openat2|creat|read|pread|write|pwrite|close|ioctl|socket|connect|bind|stat|fstat|lstat|statx|opendir|readdir|unlink|rename|mkdir|clock_gettime|gettimeofday|getpid|getuid|now_usec|sd_[a-z_]+|nl_[a-z_]+|fanotify_[a-z_]+|syscall)\s*\('
n=0 failed=0
check() {  # check CONDITION_EXIT DESCRIPTION
        n=$((n + 1))
        if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
files=("$CORE"/*.[ch])
[ -e "${files[0]}" ]
check $? "daemon/core/ has modules"
for f in "${files[@]}"; do
        name=${f#"$SRCDIR"/}
        bad=
        while read -r inc; do
                case $inc in
                \<*\>) h=${inc#<}; h=${h%>}
                       [[ " $(echo $SYSTEM) " == *" $h "* ]] || bad+=" $inc" ;;
                \"*\") h=${inc#\"}; h=${h%\"}
                       [ -e "$CORE/$h" ] || [[ " $LIB " == *" $h "* ]] || bad+=" $inc" ;;
                esac
        done < <(sed -n 's/^#include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p' "$f")
        [ -z "$bad" ]
        check $? "$name includes only pure headers${bad:+ (not:$bad)}"
        # Calls, outside comments and strings.
        calls=$(perl -0pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s{"(?:\\.|[^"\\\n])*"}{""}g; s{\x27(?:\\.|[^\x27\\])\x27}{0}g' "$f" |
                grep -oE "$IO_CALLS" | sort -u | tr '\n' ' ')
        [ -z "$calls" ]
        check $? "$name calls no I/O${calls:+ (calls: $calls)}"
done
for f in "$CORE"/*.c; do
        m=$(basename "$f" .c)
        [ -e "$SRCDIR/tests/unit/test-$m.c" ]
        check $? "daemon/core/$m.c is tested directly (tests/unit/test-$m.c)"
done
echo "1..$n"
[ "$failed" -eq 0 ]
