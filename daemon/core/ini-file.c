/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* asprintf(), vasprintf(), getline() */
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <ini.h>

#include "ini-file.h"
#include "macro.h"
#include "strutil.h"

#define WHITESPACE " \t\n\r\v\f"

typedef struct IniState {
        const char *path;
        FILE *f;
        IniSectionHandler on_section;
        IniKeyHandler on_key;
        void *userdata;
        char *buf;
        size_t bufsize;
        unsigned line;          /* of the line inih is working on */
        int error;              /* the first error, if any */
        unsigned error_line;
        char *error_message;
} IniState;

/* Records the first error only: later ones are often fallout. */
_printf_(4, 5)
static void state_fail(IniState *st, int error, unsigned line, const char *fmt, ...) {
        _cleanup_free_ char *m = NULL;
        va_list ap;
        int k;

        if (st->error != 0)
                return;

        st->error = error;
        st->error_line = line;

        va_start(ap, fmt);
        k = vasprintf(&m, fmt, ap);
        va_end(ap);
        if (k >= 0)
                k = line > 0 ? asprintf(&st->error_message, "%s:%u: %s", st->path, line, m)
                             : asprintf(&st->error_message, "%s: %s", st->path, m);
        if (k < 0) {
                st->error_message = NULL;
                st->error = -ENOMEM;
        }
}

static void strip_inline_comment(char *s) {
        /* ';' or '#' at the start or after white space begins a comment, so
         * "mode = auto   # strict | coarse" works; "a#b" stays a value.
         * inih itself only knows ';', and only inline. */
        for (char *p = s; *p; p++)
                if ((*p == ';' || *p == '#') && (p == s || strchr(WHITESPACE, p[-1]))) {
                        *p = 0;
                        return;
                }
}

/* inih's ini_reader. We hand inih one cleaned-up line per call, which gives
 * us: our own line count (Debian's inih is built without
 * INI_HANDLER_LINENO), '#' inline comments, no silent splitting of lines
 * longer than inih's buffer, no continuation lines (inih would take an
 * indented "key = value" as more of the previous value), and errors that
 * say what is wrong where inih would only give a line number. */
static char *line_reader(char *str, int num, void *userdata) {
        IniState *st = userdata;
        ssize_t n;

        if (st->error != 0)
                return NULL;    /* stop: only the first error is reported */

        errno = 0;
        n = getline(&st->buf, &st->bufsize, st->f);
        if (n < 0) {
                if (ferror(st->f)) {
                        int r = negative_errno();
                        state_fail(st, r, 0, "%s", strerror(-r));
                }
                return NULL;
        }
        st->line++;

        char *l = st->buf;
        if (strlen(l) != (size_t) n) {
                state_fail(st, -EINVAL, st->line, "line contains a NUL byte");
                return NULL;
        }
        if (st->line == 1 && startswith(l, "\xEF\xBB\xBF"))
                l += 3;

        strip_inline_comment(l);
        strstrip(l);

        size_t len = strlen(l);
        if (l[0] == '[') {
                _cleanup_free_ char *reason = NULL;
                int r;

                if (l[len - 1] != ']' || len < 3) {
                        state_fail(st, -EINVAL, st->line, "syntax error: expected '[section]'");
                        return NULL;
                }
                l[len - 1] = '\0';
                r = st->on_section ? st->on_section(st->userdata, l + 1, st->line, &reason) : 0;
                l[len - 1] = ']';
                if (r < 0) {
                        state_fail(st, r, st->line, "%s", reason ? reason : strerror(-r));
                        return NULL;
                }
        } else if (len > 0 && !strpbrk(l, "=:")) {
                /* inih also accepts "key: value", as Python's configparser does. */
                state_fail(st, -EINVAL, st->line, "syntax error: expected 'key = value', '[section]' or a comment");
                return NULL;
        }

        if (num <= 0 || len >= (size_t) num) {
                /* Name the key, as every other error does. */
                size_t k = strcspn(l, "=:");

                while (k > 0 && strchr(" \t", l[k - 1]))
                        k--;
                state_fail(st, -EINVAL, st->line, "%.*s%sline too long (%zu characters, at most %d without comments)",
                           (int) MIN(k, (size_t) 64), l, k > 0 ? ": " : "", len, num > 0 ? num - 1 : 0);
                return NULL;
        }

        memcpy(str, l, len + 1);
        return str;
}

static int key_handler(void *userdata, const char *section, const char *name, const char *value) {
        IniState *st = userdata;
        _cleanup_free_ char *reason = NULL;
        int r;

        if (st->error != 0)
                return 0;
        if (isempty(section)) {
                state_fail(st, -EINVAL, st->line, "%s: key outside of any section", name);
                return 0;
        }
        r = st->on_key(st->userdata, section, name, value ?: "", st->line, &reason);
        if (r < 0) {
                state_fail(st, r == -ENOMEM ? -ENOMEM : -EINVAL, st->line, "%s", reason ? reason : strerror(-r));
                return 0;
        }
        return 1;
}

int ini_file_parse(FILE *f, const char *path, IniSectionHandler on_section, IniKeyHandler on_key, void *userdata,
                   char **ret_error) {
        IniState st = {
                .path = path,
                .f = f,
                .on_section = on_section,
                .on_key = on_key,
                .userdata = userdata,
        };
        int r;

        if (ret_error)
                *ret_error = NULL;

        r = ini_parse_stream(line_reader, &st, key_handler, &st);
        free(st.buf);
        if (r < 0 && st.error == 0)
                state_fail(&st, r == -2 ? -ENOMEM : -EIO, 0, "inih failed (%d)", r);
        else if (r > 0 && (st.error == 0 || (unsigned) r < st.error_line)) {
                /* Something inih rejected that our reader let through. */
                free(st.error_message);
                st.error_message = NULL;
                st.error = 0;
                state_fail(&st, -EINVAL, (unsigned) r, "syntax error");
        }

        if (st.error != 0) {
                if (ret_error)
                        *ret_error = st.error_message;
                else
                        free(st.error_message);
                return st.error;
        }
        return 0;
}
