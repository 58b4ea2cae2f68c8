/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The table of who read the statistics files, for status and
 * `numastatctl readers`. Pure. Reads by the same program (comm, exe, uid,
 * unit) of the same file are one entry with a count, so a `watch -n1
 * numastat` is one line, not one per pid. A read named from an exit record
 * knows the binary (device and inode) but not its path or unit: it joins
 * the entry of the same binary, comm, uid and file, so a program that is
 * sometimes seen alive and sometimes only by its exit (sadc) is one line
 * with one period. Bounded (READERTAB_MAX): when full, a new entry
 * replaces one seen only once: the oldest of those if it is older than
 * READERTAB_KEEP_USEC, else the newest (a flood of one-off names churns
 * among itself); only when none is left, a repeat reader without a period,
 * the least recently seen; a reader with a learned period goes last. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rules.h"

#define READERTAB_MAX 64
/* An entry seen once is kept at least this long against newer ones. */
#define READERTAB_KEEP_USEC (10 * 60 * UINT64_C(1000000))
/* Reads of one entry closer than this are one visit (a program reading a
 * file in several read() calls, or twice in one go). */
#define READERTAB_VISIT_GAP_USEC (250 * 1000)
/* The intervals between visits a period is learned from. */
#define READERTAB_INTERVALS 8

typedef struct ReaderEntry {
        char *comm, *exe, *unit, *path;
        bool has_uid;
        uid_t uid;
        bool has_exe_id;                        /* the binary's device and inode */
        uint64_t exe_dev, exe_ino;
        pid_t last_pid;
        bool pid_verified;                      /* a pidfd pinned last_pid while it was named */
        uint64_t first_seen, last_seen;         /* CLOCK_REALTIME µs */
        uint64_t count;
        bool ignored;                           /* its reads do not count (a rule, or the catalogue) */
        char *rule;                             /* the ignore rule that matched */
        const char *verdict;                    /* a static READ_VERDICT_* word */
        char *why;                              /* why its reads count or not, for people */
        char *source;                           /* "FILE:LINE" of what decided, or NULL */
        char *known;                            /* the catalogue entry it is, or NULL */
        char *looked;                           /* what the look that judged it read, or NULL */

        /* Its period, learned from its counted reads (CLOCK_MONOTONIC µs). */
        uint64_t last_visit;                    /* the last visit's first read; 0: none */
        uint64_t intervals[READERTAB_INTERVALS];        /* between visits, a ring */
        unsigned n_intervals;                   /* how many were ever seen */
        uint64_t period;                        /* 0: not (yet) seen to be periodic */
        bool skips;                             /* one of its last intervals was twice the period */

        /* Its service: counted visits that found counting on without a
         * break since its previous read, those that did not, and first
         * reads that found it off (no policy in user space can serve
         * those: fanotify reports a read after it). */
        uint64_t last_read;                     /* CLOCK_MONOTONIC µs; 0: none */
        uint64_t last_counted;                  /* its latest counted read not under its own hold; 0: none */
        uint64_t served, unserved, first_off;

        /* Its cost: how long its counted reads kept counting on while the
         * allocation rate was above coarse_above for sustain (µs). */
        uint64_t held_on;
} ReaderEntry;

/* How a read was judged (verdict.c decides). */
#define READ_VERDICT_UNKNOWN "unknown"          /* no rule, not in the catalogue: counts */
#define READ_VERDICT_COUNT_RULE "count-rule"    /* a count = rule: counts */
#define READ_VERDICT_IGNORE_RULE "ignore-rule"  /* an ignore = rule: does not count */
#define READ_VERDICT_KNOWN "known"              /* the catalogue: needs no counting */
#define READ_VERDICT_KNOWN_COUNTS "known-counts"        /* the catalogue: counts */

typedef struct ReaderVerdict {
        bool counts;
        const char *verdict;    /* READ_VERDICT_* */
        const char *rule;       /* the ignore rule's text, for READ_VERDICT_IGNORE_RULE */
        const char *why;
        const char *source;
        const char *known;
        const char *looked;     /* what the catalogue's look read, or NULL */
} ReaderVerdict;

typedef struct ReaderTable {
        ReaderEntry entries[READERTAB_MAX];
        size_t n;
        uint64_t total_reads, counted_reads, ignored_reads, overflows;
        uint64_t evicted;       /* entries replaced by newer ones */
        uint64_t served, unserved, first_off;   /* every entry's, evicted ones too */
        uint64_t unkept_counted;        /* the latest counted read of a reader not kept (evicted, no memory) */
        /* Under pressure (policy auto, the rate above coarse_above for
         * sustain): how long (µs), how much of it counting was on, and the
         * held_on of entries evicted since. */
        uint64_t pressured, pressured_on, evicted_held_on;
        /* The last readertab_add()'s reader's counted read before it, if
         * that read counted (0: none, or its first): the two bound a
         * stretch it needed counting on for. */
        uint64_t added_after;
} ReaderTable;

/* When a read came and what counting had been doing until then, as the
 * manager knows it (CLOCK_MONOTONIC µs but for realtime). */
typedef struct ReadClock {
        uint64_t realtime;      /* CLOCK_REALTIME µs, for people */
        uint64_t mono;          /* for its period and its service */
        bool counting;          /* counting was on when it read */
        uint64_t on_since;      /* ...without a break since then */
        /* A first read is served if counting was on since this: the later
         * of the daemon's start and linger before it. */
        uint64_t first_since;
        bool by_holder;         /* the read is a hold's own command's: it does not linger */
} ReadClock;

typedef enum ReadService {
        READ_SERVICE_NONE,      /* not judged: ignored, or the same visit as the read before */
        READ_SERVED,
        READ_UNSERVED,
        READ_FIRST_OFF,         /* a first read that found counting off */
} ReadService;

/* How a counted visit at c was served, given the reader's previous read
 * (0: this is its first). */
ReadService readertab_service(const ReadClock *c, uint64_t previous);

/* Records a read by id at c, judged v, and, if it counts, its service.
 * Returns 1 if it made a new entry, 0 if it updated one, -ENOMEM. */
/* Entry i as its reads name it (its strings point into the entry). */
ReaderIdentity readertab_identity(const ReaderEntry *e);
/* Entry i judged again (a reload changed the rules): its verdict, and
 * whether its reads count from now on. */
int readertab_rejudge(ReaderTable *t, size_t i, const ReaderVerdict *v);
int readertab_add(ReaderTable *t, const ReaderIdentity *id, pid_t pid, bool pid_verified, const ReaderVerdict *v,
                  const ReadClock *c);

/* The period of a series of intervals between visits, or 0 if they do not
 * show one: the median of the last READERTAB_INTERVALS, once there are 3,
 * if most of them are near it (within a third) or near twice it (a read
 * that was missed). Jitter and one missed read do not move it. */
uint64_t readertab_period(const uint64_t *intervals, unsigned n);

/* Until when counting must stay on for the periodic counted readers to
 * find it on at their next read: the latest over them of their last visit
 * plus their period (twice it for one that missed a read lately), a margin
 * (a quarter of the period, at least 2 s) and capped at linger_max after
 * the visit. Returns the entry that decides it
 * (its index in *ret_index), or -1 when no periodic reader is expected
 * after now. linger_max 0: none is. */
int readertab_expected(const ReaderTable *t, uint64_t now, uint64_t linger_max, uint64_t *ret_until,
                       size_t *ret_index);
/* The latest counted read linger runs from: of the readers whose period
 * is not learned (and of those the table did not keep), so that a reader with a learned
 * period that stops holds counting on only until its missed read. 0 if
 * none; *ret_index: the entry's, or -1 (none, or not kept). */
uint64_t readertab_linger_from(const ReaderTable *t, uint64_t linger_max, int *ret_index);
/* Until when e's counted reads keep counting on (CLOCK_MONOTONIC µs): its
 * next expected read if its period is learned, else linger after its last
 * read; 0 if its reads do not count. linger UINT64_MAX: for good. */
uint64_t readertab_holds_until(const ReaderEntry *e, uint64_t linger, uint64_t linger_max);
void readertab_done(ReaderTable *t);
/* Books [from, to) (CLOCK_MONOTONIC µs) as pressured time and, if counting
 * was on, as each entry's held_on whose counted reads kept it on then
 * (readertab_holds_until). Every reader that kept it on pays in full: two
 * that each would have kept it on alone both do, so shares may sum past 1. */
void readertab_book_pressure(ReaderTable *t, uint64_t from, uint64_t to, bool counting, uint64_t linger,
                             uint64_t linger_max);
/* e's held_on as a share 0..1 of the pressured time; -1 before any. */
double readertab_held_on_share(const ReaderTable *t, const ReaderEntry *e);
/* Indices of entries sorted by cost (held_on), then count, highest first;
 * ret has t->n slots. */
void readertab_by_cost(const ReaderTable *t, size_t *ret);
