/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Judging a read by the known-readers catalogue: which entry the reader's
 * binary is (by device and inode, on the host or inside the process's
 * root), and what its own command line or configuration says, read at its
 * first read and kept per process start.
 *
 * On the loop, known_judge() looks only at our own root and at the kernel's
 * names for the process. What needs a look inside the process (its root,
 * its command line, a file it names) it asks for instead (pending, with
 * ask): the caller has known_inspect() run by the inspector, off the loop
 * and as the process, and keeps the answer with known_cache_store(). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "inspector.h"
#include "known.h"

#define KNOWN_WHY_MAX 192
#define KNOWN_SOURCE_MAX 320
/* What a look read, for people ("its command line; /etc/x.conf as its
 * configuration; ..."): paths the process named, never what they hold. */
#define KNOWN_LOOKED_MAX 224
/* Verdicts kept: sets by pid, each of a few ways. Enough for every
 * process of a busy host that reads (a flood of more only costs looks,
 * which are limited per uid). */
#define KNOWN_CACHE_WAYS 16
#define KNOWN_CACHE_SETS_BITS 8
#define KNOWN_CACHE_SETS (1u << KNOWN_CACHE_SETS_BITS)
#define KNOWN_CACHE_MAX (KNOWN_CACHE_WAYS * KNOWN_CACHE_SETS)

/* Looks into readers' processes at once: INSPECT_MAX, one of them only for
 * root's, this many for one owner (owner.h); and children killed at their
 * deadline but not gone yet, kept on top. A read waits for its look up to
 * the patience, then counts; the look is killed at the deadline (its
 * owner's processes then left alone for a while). */
#define INSPECT_READER_PER_UID 3
#define INSPECT_READER_ROOT_SLOTS 1
#define INSPECT_READER_LINGER 3
#define READ_LOOK_PATIENCE_USEC INSPECT_DEADLINE_USEC
#define READ_LOOK_DEADLINE_USEC USEC_PER_SEC
/* A verdict a file decided (a configuration, an @file of arguments) is
 * looked at again after this: the process may read the file again (a
 * reload), and the file may have changed since. */
#define KNOWN_FILE_VERDICT_USEC (60 * USEC_PER_SEC)
/* New looks a second for one owner (but root), and at once; and for all
 * owners together: users starting readers faster than this have their
 * reads count, and cost the daemon's children no more. */
#define READ_LOOKS_PER_SEC 20
#define READ_LOOKS_BURST 40
#define READ_LOOKS_ALL_PER_SEC 40
#define READ_LOOKS_ALL_BURST 80

/* What is asked of a process: compared whole (memset before filling). */
typedef struct KnownAsk {
        const Catalogue *cat;           /* the inspector's child is a copy of us: valid there */
        unsigned generation;            /* the cache's: an answer for a catalogue since replaced is dropped */
        pid_t pid;
        uint64_t start;
        uint64_t image;                 /* which exec of it (proc_stat_image()); 0: unknown */
        bool has_uid;
        uid_t uid;
        size_t reader;                  /* SIZE_MAX: which entry its binary is, inside its root */
        size_t file;                    /* the section to judge, if reader is known */
        uint64_t exe_dev, exe_ino;
        char path[256];                 /* the watched file read */
} KnownAsk;

/* What the look found: never a file's content, only which entry, which
 * section, and the documented verdicts. */
typedef struct KnownAnswer {
        size_t reader;                  /* SIZE_MAX: no entry's binary */
        size_t file;                    /* SIZE_MAX: its entry has no section for the file */
        bool counts;
        bool failed;                    /* nothing found in time (the look failed): asked again later */
        bool from_files;                /* it rests on files, which may change: asked again later */
        char why[KNOWN_WHY_MAX];
        char looked[KNOWN_LOOKED_MAX];  /* what it read; "" if nothing */
} KnownAnswer;

typedef struct KnownVerdict {
        const KnownReader *reader;      /* NULL: not a known reader (its reads count) */
        bool counts;
        char why[KNOWN_WHY_MAX];        /* "known: NAME — ..." or "counts: ..." */
        char source[KNOWN_SOURCE_MAX];  /* "FILE:LINE" of what decided */
        char looked[KNOWN_LOOKED_MAX];  /* what the look that decided read; "" if none */
        bool pending;                   /* counts until ask is answered */
        KnownAsk ask;
} KnownVerdict;

typedef struct KnownCacheEntry {
        pid_t pid;                      /* 0: free */
        uint64_t start;                 /* /proc/PID/stat starttime */
        uint64_t image;                 /* which exec of it; 0: unknown */
        uint64_t began;                 /* the same in seconds since the epoch, as exit records say it */
        bool has_uid;
        uid_t uid;
        size_t reader, file;            /* indices into the catalogue */
        bool counts;
        uint64_t stored;                /* when, in stores: the oldest of a set goes first */
        uint64_t expires;               /* CLOCK_MONOTONIC µs; 0: never (its argv alone decided) */
        char why[KNOWN_WHY_MAX];
        char looked[KNOWN_LOOKED_MAX];
} KnownCacheEntry;

/* Per-process verdicts, a ring: a process reads a file for as long as it
 * runs, and its command line changes only with an exec. Cleared when the
 * catalogue is. A verdict applies to the process it was made for: while it
 * runs, by pid, start time and which exec of it (where exec placed its
 * arguments, when that can be told); once gone, by pid, uid and start time
 * (to the second) from its exit record, its last exec's. Never by pid
 * alone. */
typedef struct KnownCache {
        KnownCacheEntry entries[KNOWN_CACHE_MAX];
        uint64_t stores;
        uint64_t file_verdict_usec;     /* how long a verdict a file decided stands (KNOWN_FILE_VERDICT_USEC) */
        unsigned generation;            /* moves on each clear */
        uint64_t own_mntns, init_mntns; /* ours and pid 1's: a process in either with root "/" has our root */
} KnownCache;

void known_cache_clear(KnownCache *c);

/* What the process facts needed are: the binary (exe_dev, exe_ino, if
 * has_exe_id) and, while alive, /proc/PID. path: the watched file read. */
/* A reader's ancestors, nearest first, for a generic program (a shell,
 * awk) that a catalogued program ran: its parent, its parent's, ... as
 * /proc shows them while they run, or their exit records once gone. */
#define KNOWN_ANCESTRY_MAX 6
typedef struct KnownAncestor {
        pid_t pid;
        bool alive;
        bool has_uid;
        uid_t uid;
        bool has_exe_id;
        uint64_t exe_dev, exe_ino;
} KnownAncestor;

typedef struct KnownRead {
        pid_t pid;                      /* 0: unknown */
        bool alive;                     /* /proc/PID is still the reader */
        bool has_uid;
        uid_t uid;                      /* its real uid */
        uint64_t began;                 /* gone: when it began (its exit record's), seconds since the epoch; 0: unknown */
        bool has_exe_id;
        uint64_t exe_dev, exe_ino;
        const char *path;
        const KnownAncestor *ancestors; /* when its binary is some entry's child= */
        size_t n_ancestors;
} KnownRead;

/* Whether a binary is some entry's child=: its reader's ancestry is then
 * worth finding (known_judge() judges it by the first other program above). */
bool known_is_child(const Catalogue *cat, uint64_t exe_dev, uint64_t exe_ino);

void known_judge(const Catalogue *cat, KnownCache *cache, const KnownRead *rd, KnownVerdict *ret);

/* The inspector's work (InspectWork) for a KnownAsk: fills a KnownAnswer.
 * Runs in the child, as the process. */
int known_inspect(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                  size_t *n_fds);

/* Keeps what a look found (or, with counts and a why, that it found
 * nothing in time) as the verdict of the process asked about. */
void known_cache_store(KnownCache *c, const KnownAsk *a, const KnownAnswer *ans);

