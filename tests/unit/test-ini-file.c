/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini-file.h"
#include "tap.h"

typedef struct Seen {
        char text[1024];
        int fail_at_line;
} Seen;

static int on_section(void *userdata, const char *section, unsigned line, char **reason) {
        Seen *s = userdata;
        size_t n = strlen(s->text);

        snprintf(s->text + n, sizeof s->text - n, "[%s]@%u ", section, line);
        return 0;
}

static int on_key(void *userdata, const char *section, const char *key, const char *value, unsigned line,
                  char **reason) {
        Seen *s = userdata;
        size_t n = strlen(s->text);

        if ((int) line == s->fail_at_line) {
                *reason = strdup("no such key");
                return -EINVAL;
        }
        snprintf(s->text + n, sizeof s->text - n, "%s.%s=%s@%u ", section, key, value, line);
        return 0;
}

static int parse(const char *text, Seen *s, char **error) {
        FILE *f = fmemopen((void *) text, strlen(text), "r");
        int r;

        *error = NULL;
        r = ini_file_parse(f, "test.conf", on_section, on_key, s, error);
        fclose(f);
        return r;
}

static void test_dialect(void) {
        Seen s = {};
        char *error;

        ok(parse("# comment\n[policy]\nmode = auto   # why\n\n; other\n[readers]\nignore = comm=x\n", &s, &error) == 0,
           "a config with comments parses");
        is_str(s.text, "[policy]@2 policy.mode=auto@3 [readers]@6 readers.ignore=comm=x@7 ",
               "sections and keys in order, with their line numbers, comments gone");
        free(error);

        s = (Seen) {};
        ok(parse("[a]\nkey = one\n  two\n", &s, &error) < 0, "no continuation lines");
        ok(error && strncmp(error, "test.conf:3:", 12) == 0, "  the error names the file and line (%s)", error);
        free(error);

        s = (Seen) { .fail_at_line = 2 };
        ok(parse("[a]\nbad = 1\ngood = 2\n", &s, &error) == -EINVAL, "a handler's error stops the parse");
        is_str(error, "test.conf:2: no such key", "  as PATH:LINE: REASON");
        ok(strstr(s.text, "good") == NULL, "  nothing after it is handled");
        free(error);

        s = (Seen) {};
        ok(parse("[a]\nkey\n", &s, &error) < 0, "a line that is neither section, key nor comment is an error");
        free(error);

        {
                static const char nul[] = "[a]\nk = v\0w\n";
                FILE *f = fmemopen((void *) nul, sizeof nul - 1, "r");

                s = (Seen) {};
                error = NULL;
                int r = ini_file_parse(f, "test.conf", on_section, on_key, &s, &error);

                ok(r < 0 && error, "a NUL byte is an error, not the end of the line (%s)", error ? error : "no error");
                fclose(f);
                free(error);
        }
}

int main(void) {
        test_dialect();
        return tap_done();
}
