/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "readertab.h"
#include "strutil.h"

static void entry_done(ReaderEntry *e) {
        free(e->comm);
        free(e->exe);
        free(e->unit);
        free(e->path);
        free(e->rule);
        free(e->why);
        free(e->looked);
        free(e->source);
        free(e->known);
        memset(e, 0, sizeof *e);
}

void readertab_done(ReaderTable *t) {
        for (size_t i = 0; i < t->n; i++)
                entry_done(&t->entries[i]);
        t->n = 0;
}

static bool entry_is(const ReaderEntry *e, const ReaderIdentity *id) {
        if (!streq_ptr(e->comm, id->comm) || !streq_ptr(e->exe, id->exe) || !streq_ptr(e->unit, id->unit) ||
            e->has_uid != id->has_uid || (id->has_uid && e->uid != id->uid) || !streq_ptr(e->path, id->path))
                return false;
        /* Another binary is another program; without a path, the device
         * and inode are the binary's only name. */
        if (e->has_exe_id && id->has_exe_id)
                return e->exe_dev == id->exe_dev && e->exe_ino == id->exe_ino;
        return id->exe || e->has_exe_id == id->has_exe_id;
}

/* An identity named from an exit record: the binary, but no path or unit. */
static bool id_from_exit(const ReaderIdentity *id) {
        return id->has_exe_id && !id->exe && !id->unit;
}

/* Whether e and id are the same binary run by the same comm and uid, reading
 * the same file; one side known only from an exit record. */
static bool entry_same_binary(const ReaderEntry *e, const ReaderIdentity *id) {
        return e->has_exe_id && id->has_exe_id && e->exe_dev == id->exe_dev && e->exe_ino == id->exe_ino &&
               id->comm && streq_ptr(e->comm, id->comm) && e->has_uid == id->has_uid &&
               (!id->has_uid || e->uid == id->uid) && streq_ptr(e->path, id->path);
}

/* Whether e's verdict and why are v's already. */
static bool entry_judged(const ReaderEntry *e, const ReaderVerdict *v) {
        return e->ignored == !v->counts && streq_ptr(e->why, v->why);
}

/* Whether a read of the same binary may join e: judged the same way (a
 * line's reads all counted, or all ignored by the same rule). Why it
 * counts may differ read by read: a look refused because the reader was
 * gone says so, its exit record (no look) does not. */
static bool entry_judged_alike(const ReaderEntry *e, const ReaderVerdict *v) {
        return e->ignored == !v->counts && streq_ptr(e->verdict, v->verdict) && streq_ptr(e->source, v->source);
}

/* The entry of the same binary that a read named from its exit record joins
 * (the most recently seen, if it ran from several units), or the entry made
 * from exit records that a read seen alive fills in. */
static ReaderEntry *entry_for_binary(ReaderTable *t, const ReaderIdentity *id, const ReaderVerdict *v) {
        ReaderEntry *best = NULL;
        bool exited = id_from_exit(id);

        if (!exited && !(id->has_exe_id && id->exe))
                return NULL;
        for (size_t i = 0; i < t->n; i++) {
                ReaderEntry *e = &t->entries[i];

                /* Judged alike, or the entry's verdict would flip read by read. */
                if (!entry_same_binary(e, id) || !entry_judged_alike(e, v))
                        continue;
                if (!exited && (e->exe || e->unit))
                        continue;       /* only an exit records' entry takes a live name */
                if (!best || e->last_seen > best->last_seen)
                        best = e;
        }
        return best;
}

static int strdup_opt(const char *s, char **ret) {
        *ret = NULL;
        if (!s)
                return 0;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

static bool near(uint64_t v, uint64_t target) {
        return v * 3 >= target * 2 && v * 3 <= target * 4;      /* within a third */
}

uint64_t readertab_period(const uint64_t *intervals, unsigned n) {
        uint64_t sorted[READERTAB_INTERVALS], median;
        unsigned k = n < READERTAB_INTERVALS ? n : READERTAB_INTERVALS, fit = 0;

        if (k < 3)
                return 0;
        memcpy(sorted, intervals, k * sizeof *sorted);
        qsort(sorted, k, sizeof *sorted, cmp_u64);
        median = sorted[k / 2];
        if (median == 0)
                return 0;
        for (unsigned i = 0; i < k; i++)
                if (near(sorted[i], median) || near(sorted[i], 2 * median))
                        fit++;
        return fit * 4 >= k * 3 ? median : 0;   /* three in four fit */
}

/* Whether one of the last intervals fits twice the period, not the
 * period: a reader that misses a read now and then. */
static bool intervals_skip(const uint64_t *intervals, unsigned n, uint64_t period) {
        unsigned k = n < READERTAB_INTERVALS ? n : READERTAB_INTERVALS;

        for (unsigned i = 0; i < k; i++)
                if (!near(intervals[i], period) && near(intervals[i], 2 * period))
                        return true;
        return false;
}

/* A counted read of e at mono: a new visit, or part of the last one. */
static void entry_learn(ReaderEntry *e, uint64_t mono) {
        if (e->last_visit != 0 && mono < e->last_visit + READERTAB_VISIT_GAP_USEC)
                return;
        if (e->last_visit != 0 && mono > e->last_visit) {
                e->intervals[e->n_intervals % READERTAB_INTERVALS] = mono - e->last_visit;
                e->n_intervals++;
                e->period = readertab_period(e->intervals, e->n_intervals);
                e->skips = e->period > 0 && intervals_skip(e->intervals, e->n_intervals, e->period);
        }
        e->last_visit = mono;
}

/* When e's next read is due, with a margin, or 0 if it is not periodic. */
static uint64_t entry_expected(const ReaderEntry *e, uint64_t linger_max) {
        uint64_t margin, keep;

        if (e->ignored || e->period == 0 || !e->comm || linger_max == 0)
                return 0;
        margin = e->period / 4 > 2 * 1000 * 1000 ? e->period / 4 : 2 * 1000 * 1000;
        /* One that missed a read lately may miss the next: wait for the one after. */
        keep = (e->skips ? 2 : 1) * e->period + margin;
        keep = keep < linger_max ? keep : linger_max;
        return e->last_visit + keep;
}

uint64_t readertab_holds_until(const ReaderEntry *e, uint64_t linger, uint64_t linger_max) {
        uint64_t expected;

        if (e->ignored || e->last_counted == 0)
                return 0;
        expected = entry_expected(e, linger_max);
        if (expected != 0)
                return expected;
        return linger == UINT64_MAX ? UINT64_MAX : e->last_counted + linger;
}

uint64_t readertab_linger_from(const ReaderTable *t, uint64_t linger_max, int *ret_index) {
        uint64_t from = t->unkept_counted;

        *ret_index = -1;
        for (size_t i = 0; i < t->n; i++) {
                const ReaderEntry *e = &t->entries[i];

                if (!e->ignored && e->last_counted > from && entry_expected(e, linger_max) == 0) {
                        from = e->last_counted;
                        *ret_index = (int) i;
                }
        }
        return from;
}

int readertab_expected(const ReaderTable *t, uint64_t now, uint64_t linger_max, uint64_t *ret_until,
                       size_t *ret_index) {
        uint64_t best = 0;
        int which = -1;

        if (linger_max == 0)
                return -1;
        for (size_t i = 0; i < t->n; i++) {
                const ReaderEntry *e = &t->entries[i];
                uint64_t until = entry_expected(e, linger_max);

                if (until > now && until > best) {
                        best = until;
                        which = (int) i;
                }
        }
        if (which < 0)
                return -1;
        *ret_until = best;
        *ret_index = (size_t) which;
        return which;
}

ReadService readertab_service(const ReadClock *c, uint64_t previous) {
        if (!c->counting)
                return previous ? READ_UNSERVED : READ_FIRST_OFF;
        return c->on_since <= (previous ? previous : c->first_since) ? READ_SERVED : READ_UNSERVED;
}

/* A read of e at c: judged once per visit, if it counts. */
static void entry_serve(ReaderTable *t, ReaderEntry *e, const ReadClock *c) {
        ReadService s;

        if (e->last_read != 0 && c->mono < e->last_read + READERTAB_VISIT_GAP_USEC)
                return;
        s = e->ignored ? READ_SERVICE_NONE : readertab_service(c, e->last_read);
        e->last_read = c->mono;
        switch (s) {
        case READ_SERVED:
                e->served++;
                t->served++;
                break;
        case READ_UNSERVED:
                e->unserved++;
                t->unserved++;
                break;
        case READ_FIRST_OFF:
                e->first_off++;
                t->first_off++;
                break;
        default:
                break;
        }
}

/* Sets e's verdict to v (a reload may change the rules or the catalogue). */
static int entry_judge(ReaderEntry *e, const ReaderVerdict *v);

/* v, unless e has it already (its verdict and what decided it). */
static int entry_rejudge(ReaderEntry *e, const ReaderVerdict *v) {
        if (entry_judged(e, v) && streq_ptr(e->source, v->source) && streq_ptr(e->looked, v->looked))
                return 0;
        return entry_judge(e, v);
}

static int entry_judge(ReaderEntry *e, const ReaderVerdict *v) {
        char *rule = NULL, *why = NULL, *source = NULL, *known = NULL, *looked = NULL;

        if (strdup_opt(v->rule, &rule) < 0 || strdup_opt(v->why, &why) < 0 || strdup_opt(v->source, &source) < 0 ||
            strdup_opt(v->known, &known) < 0 || strdup_opt(v->looked, &looked) < 0) {
                free(rule);
                free(why);
                free(source);
                free(known);
                free(looked);
                return -ENOMEM;
        }
        free(e->rule);
        free(e->why);
        free(e->source);
        free(e->known);
        free(e->looked);
        e->rule = rule;
        e->why = why;
        e->source = source;
        e->known = known;
        e->looked = looked;
        e->ignored = !v->counts;
        e->verdict = v->verdict;
        return 0;
}

/* What an entry is worth keeping: a learned period (the policy waits for
 * its next read), then a repeat reader (perhaps learning one), then one
 * seen once. */
static unsigned entry_worth(const ReaderEntry *e) {
        return e->period > 0 ? 2 : e->count > 1 ? 1 : 0;
}

/* The entry a new one replaces in a full table at now: the least worth
 * keeping; among those seen once, the oldest if it was seen before
 * READERTAB_KEEP_USEC ago, else the newest, so that a flood of one-off
 * names churns only among itself and what was there before it stays;
 * among the others the least recently seen. */
static ReaderEntry *entry_to_evict(ReaderTable *t, uint64_t now) {
        ReaderEntry *oldest = NULL, *newest = NULL, *lru = NULL;

        for (size_t i = 0; i < t->n; i++) {
                ReaderEntry *e = &t->entries[i];

                if (entry_worth(e) == 0) {
                        if (!oldest || e->last_seen < oldest->last_seen)
                                oldest = e;
                        if (!newest || e->first_seen > newest->first_seen)
                                newest = e;
                } else if (!lru || entry_worth(e) < entry_worth(lru) ||
                           (entry_worth(e) == entry_worth(lru) && e->last_seen < lru->last_seen))
                        lru = e;
        }
        if (oldest)
                return oldest->last_seen + READERTAB_KEEP_USEC <= now ? oldest : newest;
        return lru;
}

static int entry_add(ReaderTable *t, const ReaderIdentity *id, pid_t pid, bool pid_verified, const ReaderVerdict *v,
                     const ReadClock *c) {
        uint64_t now = c->realtime, mono = c->mono;
        const char *comm = id->comm, *exe = id->exe, *unit = id->unit, *path = id->path;
        bool has_uid = id->has_uid, ignored = !v->counts;
        uid_t uid = id->uid;
        ReaderEntry *e = NULL, n = {};

        t->total_reads++;
        t->added_after = 0;
        if (ignored)
                t->ignored_reads++;
        else
                t->counted_reads++;

        for (size_t i = 0; i < t->n && !e; i++)
                if (entry_is(&t->entries[i], id))
                        e = &t->entries[i];
        if (!e && (e = entry_for_binary(t, id, v)) && !id_from_exit(id)) {
                /* Seen alive at last: the entry gets the path and unit. */
                if (strdup_opt(exe, &n.exe) < 0 || strdup_opt(unit, &n.unit) < 0) {
                        entry_done(&n);
                        return -ENOMEM;
                }
                e->exe = n.exe;
                e->unit = n.unit;
                n = (ReaderEntry) {};
        }
        if (e) {
                e->count++;
                e->last_seen = now;
                e->last_pid = pid;
                e->pid_verified = pid_verified;
                if (!e->has_exe_id && id->has_exe_id) {
                        e->has_exe_id = true;
                        e->exe_dev = id->exe_dev;
                        e->exe_ino = id->exe_ino;
                }
                /* The rules may have changed on reload. */
                if (entry_rejudge(e, v) < 0)
                        return -ENOMEM;
                /* Only a named, counted reader is one to wait for. */
                if (!ignored && comm)
                        entry_learn(e, mono);
                if (!ignored && !c->by_holder) {
                        t->added_after = e->last_counted;
                        e->last_counted = mono;
                }
                entry_serve(t, e, c);
                return 0;
        }

        if (strdup_opt(comm, &n.comm) < 0 || strdup_opt(exe, &n.exe) < 0 || strdup_opt(unit, &n.unit) < 0 ||
            strdup_opt(path, &n.path) < 0 || entry_judge(&n, v) < 0) {
                entry_done(&n);
                return -ENOMEM;
        }
        n.has_uid = has_uid;
        n.uid = uid;
        n.has_exe_id = id->has_exe_id;
        n.exe_dev = id->exe_dev;
        n.exe_ino = id->exe_ino;
        n.last_pid = pid;
        n.pid_verified = pid_verified;
        n.first_seen = n.last_seen = now;
        n.count = 1;
        n.last_visit = mono;
        n.last_counted = ignored || c->by_holder ? 0 : mono;

        if (t->n < READERTAB_MAX)
                e = &t->entries[t->n++];
        else {
                e = entry_to_evict(t, now);
                /* Its reads linger still: the table forgets when it is due. */
                if (!e->ignored && e->last_counted > t->unkept_counted)
                        t->unkept_counted = e->last_counted;
                t->evicted_held_on += e->held_on;
                entry_done(e);
                t->evicted++;
        }
        *e = n;
        entry_serve(t, e, c);
        return 1;
}

ReaderIdentity readertab_identity(const ReaderEntry *e) {
        return (ReaderIdentity) {
                .comm = e->comm,
                .exe = e->exe,
                .unit = e->unit,
                .has_uid = e->has_uid,
                .uid = e->uid,
                .path = e->path,
                .has_exe_id = e->has_exe_id,
                .exe_dev = e->exe_dev,
                .exe_ino = e->exe_ino,
        };
}

int readertab_rejudge(ReaderTable *t, size_t i, const ReaderVerdict *v) {
        if (i >= t->n)
                return -EINVAL;
        return entry_rejudge(&t->entries[i], v);
}

int readertab_add(ReaderTable *t, const ReaderIdentity *id, pid_t pid, bool pid_verified, const ReaderVerdict *v,
                  const ReadClock *c) {
        int r = entry_add(t, id, pid, pid_verified, v, c);

        /* Not kept, but its read lingers all the same. */
        if (r < 0 && v->counts && !c->by_holder && c->mono > t->unkept_counted)
                t->unkept_counted = c->mono;
        return r;
}

void readertab_book_pressure(ReaderTable *t, uint64_t from, uint64_t to, bool counting, uint64_t linger,
                             uint64_t linger_max) {
        if (to <= from)
                return;
        t->pressured += to - from;
        if (!counting)
                return;
        t->pressured_on += to - from;
        for (size_t i = 0; i < t->n; i++) {
                ReaderEntry *e = &t->entries[i];
                uint64_t until = readertab_holds_until(e, linger, linger_max);

                if (until > from)
                        e->held_on += MIN(until, to) - from;
        }
}

double readertab_held_on_share(const ReaderTable *t, const ReaderEntry *e) {
        return t->pressured > 0 ? (double) e->held_on / (double) t->pressured : -1;
}

void readertab_by_cost(const ReaderTable *t, size_t *ret) {
        for (size_t i = 0; i < t->n; i++)
                ret[i] = i;
        /* Insertion sort: at most READERTAB_MAX entries. */
        for (size_t i = 1; i < t->n; i++) {
                const ReaderEntry *v = &t->entries[ret[i]];
                size_t vi = ret[i], j = i;

                while (j > 0) {
                        const ReaderEntry *a = &t->entries[ret[j - 1]];

                        if (a->held_on > v->held_on || (a->held_on == v->held_on && a->count >= v->count))
                                break;
                        ret[j] = ret[j - 1];
                        j--;
                }
                ret[j] = vi;
        }
}
