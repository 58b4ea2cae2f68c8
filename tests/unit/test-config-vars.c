/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A configuration's variables replaced from an environment, more than a
 * program would (config-vars.c): values, defaults, escapes, what is left
 * as written, and the bounds. */

#include <stdlib.h>
#include <string.h>

#include "config-vars.h"
#include "macro.h"
#include "strutil.h"
#include "tap.h"

static const char *env = "A=/proc/vmstat\nB=one\nB=two\nEMPTY=\nAB=ab\n";

static void expands(const char *text, const char *expected, const char *name) {
        _cleanup_free_ char *out = NULL;
        int r = config_vars_expand(text, env, &out);

        ok(r == 0 && streq_ptr(out, expected), "%s: '%s' -> '%s'", name, text, r == 0 ? out : "(error)");
}

int main(void) {
        _cleanup_free_ char *deep = NULL, *big = NULL, *out = NULL, *huge_env = NULL;

        expands("no variables", "no variables", "text without $ stays");
        expands("f = [\"${A}\"]", "f = [\"/proc/vmstat \"]", "${NAME}: its value");
        expands("f = [\"$A\"]", "f = [\"/proc/vmstat \"]", "$NAME: its value");
        expands("$AB $A", "ab  /proc/vmstat ", "$NAME takes the longest name");
        expands("${B}", "one two ", "every value of a name given twice");
        expands("${UNSET:-/proc/zoneinfo}", ":-/proc/zoneinfo", "an unset name: its default stays");
        expands("${A:-x${B}}", "/proc/vmstat :-xone two ", "a default is replaced too");
        expands("$$A", "$A", "$$ is a $");
        expands("cost $5", "cost $5", "$ and no name stays");
        expands("${A", "${A", "an unclosed brace stays as written");
        expands("end $", "end $", "a last $ stays");
        expands("${EMPTY}x", " x", "an empty value");

        deep = strdup("${A:-${A:-${A:-${A:-${A:-${A:-${A:-${A:-${A:-${A:-x}}}}}}}}}}");
        ok(deep && config_vars_expand(deep, env, &out) == -E2BIG, "more than 8 nested braces: -E2BIG");
        out = mfree(out);
        /* 2 MiB of value, twice: past CONFIG_VARS_EXPANDED_MAX. */
        huge_env = malloc(2 * 1024 * 1024 + 8);
        if (!huge_env)
                abort();
        memcpy(huge_env, "H=", 2);
        memset(huge_env + 2, 'x', 2 * 1024 * 1024);
        strcpy(huge_env + 2 + 2 * 1024 * 1024, "\n");
        ok(config_vars_expand("$H $H $H", huge_env, &out) == -E2BIG, "past CONFIG_VARS_EXPANDED_MAX: -E2BIG");
        return tap_done();
}
