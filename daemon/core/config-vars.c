/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A configuration's variables replaced from a process's environment, for
 * the catalogue's config_environment= (known.c): more than a program
 * would replace, so that a line that could become a forbidden one does. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* strchrnul(), open_memstream() */
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-vars.h"
#include "macro.h"
#include "strutil.h"

static bool name_start_char(char c) {
        return ascii_word_char(c) && !(c >= '0' && c <= '9');
}

/* Appends every value environ_text ("NAME=value" lines) gives name (n
 * bytes) to out, each followed by a space (the line goes on). */
static void put_environment_values(FILE *out, const char *name, size_t n, const char *environ_text) {
        for (const char *l = environ_text; l && *l;) {
                const char *end = strchrnul(l, '\n');

                if ((size_t) (end - l) > n && strncmp(l, name, n) == 0 && l[n] == '=')
                        fprintf(out, "%.*s ", (int) (end - l - n - 1), l + n + 1);
                l = *end ? end + 1 : end;
        }
}

/* The text of a "${...}" starting at s (past "${"): its length up to the
 * matching '}', or SIZE_MAX if it has none. */
static size_t braced_length(const char *s) {
        unsigned depth = 1;

        for (size_t i = 0; s[i]; i++)
                if (s[i] == '{')
                        depth++;
                else if (s[i] == '}' && --depth == 0)
                        return i;
        return SIZE_MAX;
}

/* Writes text to out with every variable replaced, more than the program
 * would: "${NAME...}" by NAME's values then the rest inside the braces
 * (":-default", itself replaced), "$NAME" by NAME's values, "$$" by "$". */
static int put_expanded(FILE *out, const char *text, size_t len, const char *environ_text, unsigned depth) {
        if (depth > 8)
                return -E2BIG;
        for (size_t i = 0; i < len; i++) {
                const char *s = text + i;
                size_t n = 0, inner;
                int r;

                if (*s != '$' || i + 1 >= len) {
                        fputc(*s, out);
                        continue;
                }
                if (s[1] == '$') {
                        fputc('$', out);
                        i++;
                        continue;
                }
                if (s[1] != '{' && !name_start_char(s[1])) {
                        fputc('$', out);
                        continue;
                }
                if (s[1] != '{') {
                        while (i + 1 + n < len && ascii_word_char(s[1 + n]))
                                n++;
                        put_environment_values(out, s + 1, n, environ_text);
                        i += n;
                        if (ftello(out) > CONFIG_VARS_EXPANDED_MAX)
                                return -E2BIG;
                        continue;
                }
                inner = braced_length(s + 2);
                if (inner == SIZE_MAX || i + 2 + inner >= len) {
                        fwrite(s, 1, len - i, out);     /* unclosed: as written */
                        break;
                }
                while (n < inner && ascii_word_char(s[2 + n]))
                        n++;
                put_environment_values(out, s + 2, n, environ_text);
                if (ftello(out) > CONFIG_VARS_EXPANDED_MAX)
                        return -E2BIG;
                r = put_expanded(out, s + 2 + n, inner - n, environ_text, depth + 1);
                if (r < 0)
                        return r;
                i += 2 + inner;
        }
        return 0;
}

int config_vars_expand(const char *text, const char *environ_text, char **ret) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&buf, &size);
        int r;

        if (!out)
                return -ENOMEM;
        r = put_expanded(out, text, strlen(text), environ_text, 0);
        if (fclose(out) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0)
                return r;
        *ret = TAKE_PTR(buf);
        return 0;
}
