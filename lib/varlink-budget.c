/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The call budget of peers other than root (varlink-budget.h). Each bucket
 * is kept as a generic cell rate algorithm keeps it: one time, when the
 * bucket would be full again (its "theoretical arrival time"). A call at
 * now fits while that time is less than one bucket's depth ahead of now,
 * and moves it one interval on; so a bucket costs 8 bytes, refills without
 * being touched, and tells when its next call fits. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "varlink-budget.h"

/* A connection kept waiting is logged at most this often. */
#define WAIT_LOG_INTERVAL (10 * USEC_PER_SEC)
/* The timer's slack: a grant a little late costs nothing (the bucket
 * keeps what it refilled meanwhile), and sd-event may fold wakeups. */
#define TIMER_ACCURACY USEC_PER_MSEC

typedef struct Rate {
        uint64_t interval;      /* µs a call costs; 0: no limit */
        uint64_t depth;         /* the burst, in µs: burst × interval */
        unsigned per_sec, burst;        /* as configured, for the log */
} Rate;

typedef struct Bucket {
        uid_t uid;
        uint64_t full_at;
} Bucket;

typedef struct Waiter {
        void *conn;
        uid_t uid;
        unsigned want;
} Waiter;

struct VarlinkBudget {
        VarlinkBudgetGrant grant;
        void *userdata;
        Rate per_uid, others;
        uint64_t others_full_at;
        Bucket *buckets;                /* by uid; those not full (any may have become full since) */
        size_t n_buckets, n_alloc;
        Waiter *line;                   /* in the order they came */
        size_t n_line, line_alloc;
        sd_event *event;
        int64_t priority;
        sd_event_source *timer;
        uint64_t logged_at;
        unsigned waits_since_log;
};

int varlink_budget_new(VarlinkBudgetGrant grant, void *userdata, VarlinkBudget **ret) {
        VarlinkBudget *b = calloc(1, sizeof *b);

        if (!b)
                return -ENOMEM;
        b->grant = grant;
        b->userdata = userdata;
        *ret = b;
        return 0;
}

VarlinkBudget *varlink_budget_free(VarlinkBudget *b) {
        if (!b)
                return NULL;
        sd_event_source_disable_unref(b->timer);
        sd_event_unref(b->event);
        free(b->buckets);
        free(b->line);
        free(b);
        return NULL;
}

int varlink_budget_attach_event(VarlinkBudget *b, sd_event *event, int64_t priority) {
        if (b->event)
                return -EBUSY;
        b->event = sd_event_ref(event);
        b->priority = priority;
        return 0;
}

static Rate rate_make(unsigned per_sec, unsigned burst) {
        uint64_t interval;

        if (per_sec == 0)
                return (Rate) { 0 };
        interval = MAX(USEC_PER_SEC / per_sec, (uint64_t) 1);
        return (Rate) { .interval = interval, .depth = interval * MAX(burst, 1U), .per_sec = per_sec,
                        .burst = MAX(burst, 1U) };
}

void varlink_budget_set(VarlinkBudget *b, unsigned per_uid_rate, unsigned per_uid_burst, unsigned others_rate,
                        unsigned others_burst) {
        b->per_uid = rate_make(per_uid_rate, per_uid_burst);
        b->others = rate_make(others_rate, others_burst);
}

/* How many of n calls a bucket full at full_at takes at now. */
static unsigned rate_fits(const Rate *r, uint64_t full_at, uint64_t now, unsigned n) {
        uint64_t from = MAX(full_at, now);

        if (r->interval == 0)
                return n;
        if (from >= now + r->depth)
                return 0;
        return (unsigned) MIN((uint64_t) n, (now + r->depth - from) / r->interval);
}

static uint64_t rate_charge(const Rate *r, uint64_t full_at, uint64_t now, unsigned n) {
        return MAX(full_at, now) + r->interval * n;
}

/* When the next call fits in a bucket that takes none now. */
static uint64_t rate_next(const Rate *r, uint64_t full_at) {
        return full_at + r->interval - r->depth;
}

static Bucket *bucket_find(VarlinkBudget *b, uid_t uid, size_t *ret_at) {
        size_t lo = 0, hi = b->n_buckets;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (b->buckets[mid].uid < uid)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *ret_at = lo;
        return lo < b->n_buckets && b->buckets[lo].uid == uid ? &b->buckets[lo] : NULL;
}

/* Drops the buckets that are full again (they are what a new one is):
 * what is kept is bounded by the calls of the last burst's time. */
static void buckets_prune(VarlinkBudget *b, uint64_t now) {
        size_t k = 0;

        for (size_t i = 0; i < b->n_buckets; i++)
                if (b->buckets[i].full_at > now)
                        b->buckets[k++] = b->buckets[i];
        b->n_buckets = k;
}

static int bucket_set(VarlinkBudget *b, uid_t uid, uint64_t full_at, uint64_t now) {
        size_t at;
        Bucket *k = bucket_find(b, uid, &at);

        if (k) {
                k->full_at = full_at;
                return 0;
        }
        if (b->n_buckets == b->n_alloc) {
                buckets_prune(b, now);
                (void) bucket_find(b, uid, &at);
        }
        if (b->n_buckets == b->n_alloc) {
                size_t n = MAX(b->n_alloc * 2, (size_t) 16);
                Bucket *p = reallocarray(b->buckets, n, sizeof *p);

                if (!p)
                        return -ENOMEM;
                b->buckets = p;
                b->n_alloc = n;
        }
        memmove(b->buckets + at + 1, b->buckets + at, (b->n_buckets - at) * sizeof *b->buckets);
        b->buckets[at] = (Bucket) { .uid = uid, .full_at = full_at };
        b->n_buckets++;
        return 0;
}

/* Takes up to n calls for uid from both buckets. 0: none fits; then
 * *ret_next is when one may, and *ret_shared whether the shared bucket is
 * (also) empty, so that no one else's call fits either. */
static unsigned buckets_take(VarlinkBudget *b, uid_t uid, unsigned n, uint64_t now, uint64_t *ret_next,
                             bool *ret_shared) {
        size_t at;
        Bucket *k = bucket_find(b, uid, &at);
        uint64_t mine = k ? k->full_at : 0;
        unsigned g = MIN(rate_fits(&b->per_uid, mine, now, n), rate_fits(&b->others, b->others_full_at, now, n));

        if (g == 0) {
                bool shared = rate_fits(&b->others, b->others_full_at, now, 1) == 0;

                *ret_next = 0;
                if (rate_fits(&b->per_uid, mine, now, 1) == 0)
                        *ret_next = rate_next(&b->per_uid, mine);
                if (shared)
                        *ret_next = MAX(*ret_next, rate_next(&b->others, b->others_full_at));
                *ret_shared = shared;
                return 0;
        }
        /* Without room to remember the uid's bucket, its calls go on
         * (paid from the shared one): better than holding them for good. */
        if (b->per_uid.interval > 0 && bucket_set(b, uid, rate_charge(&b->per_uid, mine, now, g), now) < 0)
                log_oom();
        if (b->others.interval > 0)
                b->others_full_at = rate_charge(&b->others, b->others_full_at, now, g);
        return g;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void timer_arm(VarlinkBudget *b, uint64_t when) {
        int r;

        if (!b->event)
                return;
        if (!b->timer) {
                r = sd_event_add_time(b->event, &b->timer, CLOCK_MONOTONIC, when, TIMER_ACCURACY, on_timer, b);
                if (r >= 0)
                        r = sd_event_source_set_priority(b->timer, b->priority);
        } else {
                r = sd_event_source_set_time(b->timer, when);
                if (r >= 0)
                        r = sd_event_source_set_enabled(b->timer, SD_EVENT_ONESHOT);
        }
        if (r < 0)
                log_error_errno(r, "varlink: cannot arm the call budget's timer, calls that wait may wait long: %m");
}

static void log_wait(VarlinkBudget *b, uid_t uid, uint64_t now) {
        if (b->logged_at != 0 && now < b->logged_at + WAIT_LOG_INTERVAL) {
                b->waits_since_log++;
                return;
        }
        char mine[64] = "", shared[80] = "";

        if (b->per_uid.interval > 0)
                snprintf(mine, sizeof mine, "a uid may make %u calls a second, %u at once", b->per_uid.per_sec,
                         b->per_uid.burst);
        if (b->others.interval > 0)
                snprintf(shared, sizeof shared, "%sall uids but root together %u, %u at once", *mine ? "; " : "",
                         b->others.per_sec, b->others.burst);
        log_notice("varlink: calls of uid %u wait for their turn (%s%s)%s%.0u%s.", (unsigned) uid, mine, shared,
                   b->waits_since_log ? "; " : "", b->waits_since_log,
                   b->waits_since_log ? " more waits since the last such line" : "");
        b->logged_at = now;
        b->waits_since_log = 0;
}

unsigned varlink_budget_take(VarlinkBudget *b, void *conn, uid_t uid, unsigned n, uint64_t now) {
        uint64_t next = now;
        bool shared = false;
        unsigned g;

        if (uid == 0 || (b->per_uid.interval == 0 && b->others.interval == 0))
                return n;
        /* Those already waiting go first: a newcomer takes only while no
         * one waits. */
        if (b->n_line == 0) {
                g = buckets_take(b, uid, n, now, &next, &shared);
                if (g > 0)
                        return g;
        } else if (rate_fits(&b->others, b->others_full_at, now, 1) == 0)
                next = 0;       /* the timer is armed for the line: no one may go before it */
        if (b->n_line == b->line_alloc) {
                size_t a = MAX(b->line_alloc * 2, (size_t) 16);
                Waiter *p = reallocarray(b->line, a, sizeof *p);

                if (!p) {
                        log_oom();
                        return n;       /* not to be woken, it must not wait */
                }
                b->line = p;
                b->line_alloc = a;
        }
        b->line[b->n_line++] = (Waiter) { .conn = conn, .uid = uid, .want = n };
        log_wait(b, uid, now);
        if (next > 0)
                timer_arm(b, next);
        return 0;
}

static void line_remove(VarlinkBudget *b, size_t i) {
        memmove(b->line + i, b->line + i + 1, (b->n_line - i - 1) * sizeof *b->line);
        b->n_line--;
}

void varlink_budget_forget(VarlinkBudget *b, void *conn) {
        for (size_t i = 0; b && i < b->n_line; i++)
                if (b->line[i].conn == conn) {
                        line_remove(b, i);
                        return;
                }
}

uint64_t varlink_budget_run(VarlinkBudget *b, uint64_t now) {
        uint64_t next = UINT64_MAX;

        for (size_t i = 0; i < b->n_line;) {
                Waiter w = b->line[i];
                uint64_t when;
                bool shared;
                unsigned g = buckets_take(b, w.uid, w.want, now, &when, &shared);

                if (g > 0) {
                        line_remove(b, i);
                        b->grant(w.conn, g, b->userdata);
                        continue;
                }
                next = MIN(next, when);
                if (shared)
                        break;  /* no one behind fits either */
                i++;            /* its uid's bucket is empty: the next may go */
        }
        return b->n_line > 0 ? next : 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        VarlinkBudget *b = userdata;
        uint64_t now, next;

        if (sd_event_now(b->event, CLOCK_MONOTONIC, &now) < 0)
                now = usec;
        next = varlink_budget_run(b, now);
        if (next > 0)
                timer_arm(b, next);
        return 0;
}

size_t varlink_budget_waiting(const VarlinkBudget *b) {
        return b->n_line;
}

size_t varlink_budget_uids(const VarlinkBudget *b) {
        return b->n_buckets;
}
