/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* open_memstream() */
#endif

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "rules.h"
#include "strutil.h"

/* A set rule field against what attribution found: an unknown identity
 * field never matches, so an unattributed reader is never ignored. */
static bool match_exact(const char *pattern, const char *value) {
        return !pattern || (value && strcmp(pattern, value) == 0);
}

static bool match_glob(const char *pattern, const char *value, int flags) {
        return !pattern || (value && fnmatch(pattern, value, flags) == 0);
}

static bool match_exe(const IgnoreRule *rule, const ReaderIdentity *id) {
        if (!rule->exe || (id->exe && strcmp(rule->exe, id->exe) == 0))
                return true;
        return rule->has_exe_id && id->has_exe_id && rule->exe_dev == id->exe_dev && rule->exe_ino == id->exe_ino;
}

static bool rule_is_empty(const IgnoreRule *rule) {
        return !rule->comm && !rule->exe && !rule->unit && !rule->path && !rule->has_uid;
}

static bool rule_matches(const IgnoreRule *rule, const ReaderIdentity *id) {
        /* The parser never produces an empty rule; should one appear anyway it
         * must not silently ignore every reader. */
        if (rule_is_empty(rule))
                return false;

        if (!match_exact(rule->comm, id->comm))
                return false;
        if (!match_exe(rule, id))
                return false;
        /* Unit names have no hierarchy: "*" may span anything. */
        if (!match_glob(rule->unit, id->unit, 0))
                return false;
        /* Paths: "*" stops at "/", like the glob(3) of the watch patterns. */
        if (!match_glob(rule->path, id->path, FNM_PATHNAME))
                return false;
        if (rule->has_uid && (!id->has_uid || (unsigned) id->uid != rule->uid))
                return false;

        return true;
}

int rules_match(const IgnoreRule *rules, size_t n_rules, const ReaderIdentity *id) {
        if (!id)
                return -1;

        for (size_t i = 0; i < n_rules; i++)
                if (rule_matches(rules + i, id))
                        return (int) i;

        return -1;
}

char *rule_to_string(const IgnoreRule *r) {
        /* buf first: cleanups run in reverse, and fclose() still writes to it. */
        _cleanup_free_ char *buf = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t size = 0;
        const char *sep = "";

        if (!r)
                return NULL;

        f = open_memstream(&buf, &size);
        if (!f)
                return NULL;

        /* Same field order as the parser's messages; values never contain
         * white space (the parser splits on it), so no quoting is needed. */
#define FIELD(name, value)                                        \
        do {                                                      \
                if (value) {                                      \
                        fprintf(f, "%s" name "=%s", sep, value);  \
                        sep = " ";                                \
                }                                                 \
        } while (0)

        FIELD("comm", r->comm);
        FIELD("exe", r->exe);
        FIELD("unit", r->unit);
        if (r->has_uid) {
                fprintf(f, "%suid=%u", sep, r->uid);
                sep = " ";
        }
        FIELD("path", r->path);
#undef FIELD

        if (fflush(f) != 0 || ferror(f))
                return NULL;
        /* open_memstream() only hands out the buffer for good at fclose(). */
        fclose(TAKE_PTR(f));
        return TAKE_PTR(buf);
}
