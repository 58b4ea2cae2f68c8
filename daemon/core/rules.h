/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Matching reads against the [readers] ignore rules. Pure. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One `ignore =` line: every field that is set must match. */
typedef struct IgnoreRule {
        char *comm;
        char *exe;
        char *unit;
        char *path;     /* fnmatch(3) glob */
        bool has_uid;
        unsigned uid;
        /* exe's binary, stat()ed when the config is put in force (not by the
         * pure parser): matches a reader known only by its exit record, and
         * one run through another path to the same file (/bin vs /usr/bin). */
        bool has_exe_id;
        uint64_t exe_dev, exe_ino;
        char *source;   /* "numastatd.conf:57": where it was written, for "ignored by rule ..." */
} IgnoreRule;

/* Who read what, as attribution found it. Unknown fields are NULL / has_uid false. */
typedef struct ReaderIdentity {
        const char *comm;
        const char *exe;
        const char *unit;       /* system unit, or user unit, or NULL */
        bool has_uid;
        uid_t uid;
        const char *path;       /* the statistics file, as configured (no root prefix) */
        bool has_exe_id;        /* the binary's device and inode (stat of /proc/PID/exe, or an exit record) */
        uint64_t exe_dev, exe_ino;
} ReaderIdentity;

/* Index of the first rule whose every set field matches, or -1. A rule
 * field whose identity field is unknown does not match (an unattributed
 * reader is never ignored: the safe side). path and unit use fnmatch(3)
 * globs; comm, exe and uid are exact. */
int rules_match(const IgnoreRule *rules, size_t n_rules, const ReaderIdentity *id);

/* An exe rule matches the reader's path, or its binary's device and inode
 * where both sides know them. */

/* "comm=node_exporter path=/proc/vmstat" for display; malloc'd. */
char *rule_to_string(const IgnoreRule *r);
