/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Judging a read by the known-readers catalogue: which entry the reader's
 * binary is (by device and inode, on the host or inside the process's
 * root), and what its own command line or configuration says, read at its
 * first read and kept per process start. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "known.h"

#define KNOWN_WHY_MAX 192
#define KNOWN_SOURCE_MAX 320
#define KNOWN_CACHE_MAX 128

typedef struct KnownVerdict {
        const KnownReader *reader;      /* NULL: not a known reader (its reads count) */
        bool counts;
        char why[KNOWN_WHY_MAX];        /* "known: NAME — ..." or "counts: ..." */
        char source[KNOWN_SOURCE_MAX];  /* "FILE:LINE" of what decided */
} KnownVerdict;

typedef struct KnownCacheEntry {
        pid_t pid;                      /* 0: free */
        uint64_t start;                 /* /proc/PID/stat starttime */
        uint64_t began;                 /* the same in seconds since the epoch, as exit records say it */
        bool has_uid;
        uid_t uid;
        size_t reader, file;            /* indices into the catalogue */
        bool counts;
        char why[KNOWN_WHY_MAX];
} KnownCacheEntry;

/* Per-process verdicts, a ring: a process reads a file for as long as it
 * runs, its command line does not change. Cleared when the catalogue is.
 * A verdict applies to the process it was made for: while it runs, by pid
 * and start time; once gone, by pid, uid and start time (to the second)
 * from its exit record. Never by pid alone. */
typedef struct KnownCache {
        KnownCacheEntry entries[KNOWN_CACHE_MAX];
        size_t next;
} KnownCache;

void known_cache_clear(KnownCache *c);

/* What the process facts needed are: the binary (exe_dev, exe_ino, if
 * has_exe_id) and, while alive, /proc/PID. path: the watched file read. */
typedef struct KnownRead {
        pid_t pid;                      /* 0: unknown */
        bool alive;                     /* /proc/PID is still the reader */
        bool has_uid;
        uid_t uid;                      /* its real uid */
        uint64_t began;                 /* gone: when it began (its exit record's), seconds since the epoch; 0: unknown */
        bool has_exe_id;
        uint64_t exe_dev, exe_ino;
        const char *path;
} KnownRead;

void known_judge(const Catalogue *cat, KnownCache *cache, const KnownRead *rd, KnownVerdict *ret);
