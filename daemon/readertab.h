/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The table of who read the statistics files, for status and
 * `numastatctl readers`. Pure. Reads by the same program (comm, exe, uid,
 * unit) of the same file are one entry with a count, so a `watch -n1
 * numastat` is one line, not one per pid. Bounded: the least recently seen
 * entry makes room. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rules.h"

#define READERTAB_MAX 64

typedef struct ReaderEntry {
        char *comm, *exe, *unit, *path;
        bool has_uid;
        uid_t uid;
        pid_t last_pid;
        bool pid_verified;                      /* a pidfd pinned last_pid while it was named */
        uint64_t first_seen, last_seen;         /* CLOCK_REALTIME µs */
        uint64_t count;
        bool ignored;
        char *rule;                             /* the ignore rule that matched */
} ReaderEntry;

typedef struct ReaderTable {
        ReaderEntry entries[READERTAB_MAX];
        size_t n;
        uint64_t total_reads, counted_reads, ignored_reads, overflows;
} ReaderTable;

/* Records a read by id. rule: the ignore rule that matched, NULL for a
 * counted read. Returns 1 if it made a new entry, 0 if it updated one,
 * -ENOMEM. */
int readertab_add(ReaderTable *t, const ReaderIdentity *id, pid_t pid, bool pid_verified, const char *rule,
                  uint64_t now);
void readertab_done(ReaderTable *t);
/* Indices of entries sorted by count, highest first; ret has t->n slots. */
void readertab_by_count(const ReaderTable *t, size_t *ret);
