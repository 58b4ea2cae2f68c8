/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Parsing an entry from text in the catalogue's tests: as the file
 * /x/e.conf, named "e". */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "known.h"
#include "macro.h"
#include "strutil.h"
#include "tap.h"

static inline int parse(const char *text, KnownReader *ret, char **error) {
        FILE *f = fmemopen((void *) text, strlen(text), "r");
        int r = known_reader_parse(f, "/x/e.conf", "e", ret, error);
        fclose(f);
        return r;
}

static inline void parse_fails(const char *what, const char *text, const char *message) {
        _cleanup_free_ char *error = NULL;
        KnownReader k = {};

        ok(parse(text, &k, &error) == -EINVAL, "%s: rejected", what);
        ok(error && strstr(error, message), "  says \"%s\" (%s)", message, strnull(error));
        known_reader_done(&k);
}
