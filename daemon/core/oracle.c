/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "oracle.h"

static size_t slot_of(const OracleTrace *t, uint64_t at) {
        uint64_t i = at / t->interval;

        return i < t->n ? (size_t) i : t->n - 1;        /* a read after the end counts in the last */
}

static uint64_t div_up(uint64_t a, uint64_t b) {
        return a / b + (a % b != 0);
}

static int cmp_read(const void *a, const void *b) {
        const OracleRead *x = a, *y = b;

        if (x->reader != y->reader)
                return x->reader < y->reader ? -1 : 1;
        return x->at < y->at ? -1 : x->at > y->at;
}

/* The reads sorted by reader, then time: each reader's pairs of
 * consecutive reads are neighbours. */
static OracleRead *sorted_reads(const OracleTrace *t) {
        OracleRead *r = malloc((t->n_reads ? t->n_reads : 1) * sizeof *r);

        if (!r)
                return NULL;
        if (t->n_reads)
                memcpy(r, t->reads, t->n_reads * sizeof *r);
        qsort(r, t->n_reads, sizeof *r, cmp_read);
        return r;
}

int oracle_judge(const OracleTrace *t, const bool *off, OracleResult *ret) {
        OracleRead *r;

        if (t->interval == 0 || t->n == 0)
                return -EINVAL;
        r = sorted_reads(t);
        if (!r)
                return -ENOMEM;
        *ret = (OracleResult) {};
        for (size_t i = 0; i < t->n; i++) {
                double pages = t->rate[i] * (double) t->interval / 1e6;

                ret->pages_total += pages;
                if (off[i])
                        ret->pages_off += pages;
                if (i > 0 ? off[i] != off[i - 1] : off[0] && !t->start_free)
                        ret->switches++;        /* the start is on, unless free */
        }
        for (size_t k = 1; k < t->n_reads; k++) {
                bool served = true;

                if (r[k].reader != r[k - 1].reader)
                        continue;
                ret->servable++;
                for (size_t i = slot_of(t, r[k - 1].at); i <= slot_of(t, r[k].at) && served; i++)
                        served = !off[i];
                ret->served += served;
        }
        free(r);
        return 0;
}

static void need(const OracleTrace *t, bool *needed, uint64_t from, uint64_t to) {
        for (size_t i = slot_of(t, from); i <= slot_of(t, to); i++)
                needed[i] = true;
}

/* Which intervals must be on to serve every servable read; without
 * foresight, also one more read at each reader's last pace. */
static int needed_slots(const OracleTrace *t, bool no_foresight, bool *needed) {
        OracleRead *r;

        if (t->needed) {
                memcpy(needed, t->needed, t->n * sizeof *needed);
                return 0;
        }
        r = sorted_reads(t);
        if (!r)
                return -ENOMEM;
        memset(needed, 0, t->n * sizeof *needed);
        for (size_t k = 1; k < t->n_reads; k++) {
                if (r[k].reader != r[k - 1].reader)
                        continue;
                need(t, needed, r[k - 1].at, r[k].at);
                if (no_foresight && (k + 1 == t->n_reads || r[k + 1].reader != r[k].reader))
                        need(t, needed, r[k].at, r[k].at + (r[k].at - r[k - 1].at));
        }
        free(r);
        return 0;
}

/* sustained[i]: the samples up to i have been on one side for sustain,
 * as the policy judges it (the streak's first sample at least sustain
 * before sample i). */
static void sustained(const OracleTrace *t, uint64_t sustain, bool above, double limit, bool *ret) {
        uint64_t need = div_up(sustain, t->interval);
        size_t streak = 0;

        for (size_t i = 0; i < t->n; i++) {
                bool side = above ? t->rate[i] > limit : t->rate[i] < limit;

                streak = side ? streak + 1 : 0;
                ret[i] = streak > 0 && streak - 1 >= need;
        }
}

/* Dynamic programming over the intervals. A state is on or off, with the
 * intervals since that switch (capped at the dwell, K): going off needs
 * K on; the rate low for sustain forces counting on only once K passed
 * off, as the policy does. Best is most pages off, then fewest switches. */
typedef struct Best {
        double pages;
        unsigned switches;
        bool reached;
} Best;

static bool better(const Best *a, const Best *b) {
        return a->reached && (!b->reached || a->pages > b->pages ||
                              (a->pages == b->pages && a->switches < b->switches));
}

static void offer(Best *next, uint32_t *from, size_t to, const Best *cand, uint32_t prev) {
        if (better(cand, &next[to])) {
                next[to] = *cand;
                from[to] = prev;
        }
}

struct OracleRun {
        OracleTrace t;          /* borrowed: valid until the run is freed */
        bool keep;              /* the schedule, not just its figures */
        size_t dwell, states, next_interval;
        bool *needed, *start_ok, *stop_now;
        Best *cur, *next;
        uint32_t *from;         /* keep: per interval and state; else one row, unused */
};

OracleRun *oracle_run_free(OracleRun *r) {
        if (!r)
                return NULL;
        free(r->needed);
        free(r->start_ok);
        free(r->stop_now);
        free(r->cur);
        free(r->next);
        free(r->from);
        free(r);
        return NULL;
}

int oracle_run_new(const OracleTrace *t, const OracleLimits *l, bool keep, OracleRun **ret) {
        _cleanup_(oracle_run_freep) OracleRun *r = NULL;

        if (t->interval == 0 || t->n == 0 || (!keep && !t->needed))
                return -EINVAL;
        if (div_up(l->min_dwell, t->interval) + 1 > ORACLE_MAX_STATES / 2 / (keep ? t->n : 1))
                return -E2BIG;
        r = calloc(1, sizeof *r);
        if (!r)
                return -ENOMEM;
        r->t = *t;
        r->keep = keep;
        r->dwell = (size_t) div_up(l->min_dwell, t->interval);
        r->states = 2 * (r->dwell + 1);       /* on k: k; off k: dwell + 1 + k */
        r->needed = calloc(t->n, sizeof *r->needed);
        r->start_ok = calloc(t->n, sizeof *r->start_ok);
        r->stop_now = calloc(t->n, sizeof *r->stop_now);
        r->cur = calloc(r->states, sizeof *r->cur);
        r->next = calloc(r->states, sizeof *r->next);
        r->from = calloc(keep ? t->n * r->states : r->states, sizeof *r->from);
        if (!r->needed || !r->start_ok || !r->stop_now || !r->cur || !r->next || !r->from)
                return -ENOMEM;
        if (needed_slots(t, l->no_foresight, r->needed) < 0)
                return -ENOMEM;
        sustained(t, l->sustain, true, l->coarse_above, r->start_ok);
        sustained(t, l->sustain, false, l->strict_below, r->stop_now);
        if (t->start_free)              /* on or off, the dwell long over */
                r->cur[r->dwell].reached = r->cur[r->dwell + 1 + r->dwell].reached = true;
        else
                r->cur[0].reached = true;  /* the start: on, a switch just now */
        *ret = TAKE_PTR(r);
        return 0;
}

/* One interval of the dynamic programming. */
static void plan_interval(OracleRun *r, size_t i) {
        size_t dwell = r->dwell, states = r->states;
        double pages = r->t.rate[i] * (double) r->t.interval / 1e6;
        uint32_t *fi = r->from + (r->keep ? i * states : 0);
        size_t first = MIN((size_t) 1, dwell);  /* k after the interval a switch starts */
        Best *next = r->next, *swap;

        memset(next, 0, states * sizeof *next);
        for (size_t s = 0; s < states; s++) {
                bool is_off = s > dwell;
                size_t k = is_off ? s - dwell - 1 : s, later = MIN(k + 1, dwell);
                Best c = r->cur[s];

                if (!c.reached)
                        continue;
                if (!is_off) {
                        offer(next, fi, later, &c, (uint32_t) s);
                        if (k == dwell && !r->needed[i] && r->start_ok[i]) {
                                c.pages += pages;
                                c.switches++;
                                offer(next, fi, dwell + 1 + first, &c, (uint32_t) s);
                        }
                        continue;
                }
                if (!r->needed[i] && !(r->stop_now[i] && k == dwell)) {
                        c.pages += pages;
                        offer(next, fi, dwell + 1 + later, &c, (uint32_t) s);
                        c = r->cur[s];
                }
                c.switches++;
                offer(next, fi, first, &c, (uint32_t) s);
        }
        swap = r->cur;
        r->cur = next;
        r->next = swap;
}

int oracle_run_step(OracleRun *r, size_t work) {
        /* work counts states: an interval costs states of it. */
        size_t intervals = MAX(work / r->states, (size_t) 1);

        for (; intervals > 0 && r->next_interval < r->t.n; intervals--)
                plan_interval(r, r->next_interval++);
        return r->next_interval >= r->t.n;
}

int oracle_run_result(const OracleRun *r, bool *ret_off, OracleResult *ret) {
        _cleanup_free_ bool *off = NULL;
        size_t state = 0;

        if (r->next_interval < r->t.n)
                return -EBUSY;
        for (size_t s = 1; s < r->states; s++)
                if (better(&r->cur[s], &r->cur[state]))
                        state = s;
        if (!r->keep) {
                *ret = (OracleResult) { .pages_off = r->cur[state].pages, .switches = r->cur[state].switches };
                for (size_t i = 0; i < r->t.n; i++)
                        ret->pages_total += r->t.rate[i] * (double) r->t.interval / 1e6;
                return 0;
        }
        off = calloc(r->t.n, sizeof *off);
        if (!off)
                return -ENOMEM;
        for (size_t i = r->t.n; i-- > 0;) {
                off[i] = state > r->dwell;
                state = r->from[i * r->states + state];
        }
        if (ret_off)
                memcpy(ret_off, off, r->t.n * sizeof *off);
        return oracle_judge(&r->t, off, ret);
}

int oracle_schedule(const OracleTrace *t, const OracleLimits *l, bool *ret_off, OracleResult *ret) {
        _cleanup_(oracle_run_freep) OracleRun *r = NULL;
        int k;

        k = oracle_run_new(t, l, ret_off || !t->needed, &r);
        if (k < 0)
                return k;
        (void) oracle_run_step(r, SIZE_MAX);
        return oracle_run_result(r, ret_off, ret);
}
