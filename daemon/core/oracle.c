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
        OracleRead *r = sorted_reads(t);

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

int oracle_schedule(const OracleTrace *t, const OracleLimits *l, bool *ret_off, OracleResult *ret) {
        _cleanup_free_ bool *needed = NULL, *start_ok = NULL, *stop_now = NULL, *off = NULL;
        _cleanup_free_ Best *cur = NULL, *next = NULL;
        _cleanup_free_ uint32_t *from = NULL;
        size_t dwell, states, state;

        if (t->interval == 0 || t->n == 0)
                return -EINVAL;
        if (div_up(l->min_dwell, t->interval) + 1 > ORACLE_MAX_STATES / 2 / t->n)
                return -E2BIG;
        dwell = (size_t) div_up(l->min_dwell, t->interval);
        states = 2 * (dwell + 1);       /* on k: k; off k: dwell + 1 + k */
        needed = calloc(t->n, sizeof *needed);
        start_ok = calloc(t->n, sizeof *start_ok);
        stop_now = calloc(t->n, sizeof *stop_now);
        off = calloc(t->n, sizeof *off);
        cur = calloc(states, sizeof *cur);
        next = calloc(states, sizeof *next);
        from = calloc(t->n * states, sizeof *from);
        if (!needed || !start_ok || !stop_now || !off || !cur || !next || !from)
                return -ENOMEM;
        if (needed_slots(t, l->no_foresight, needed) < 0)
                return -ENOMEM;
        sustained(t, l->sustain, true, l->coarse_above, start_ok);
        sustained(t, l->sustain, false, l->strict_below, stop_now);

        if (t->start_free)              /* on or off, the dwell long over */
                cur[dwell].reached = cur[dwell + 1 + dwell].reached = true;
        else
                cur[0].reached = true;  /* the start: on, a switch just now */
        for (size_t i = 0; i < t->n; i++) {
                double pages = t->rate[i] * (double) t->interval / 1e6;
                uint32_t *fi = from + i * states;
                size_t first = MIN((size_t) 1, dwell);  /* k after the interval a switch starts */

                memset(next, 0, states * sizeof *next);
                for (size_t s = 0; s < states; s++) {
                        bool is_off = s > dwell;
                        size_t k = is_off ? s - dwell - 1 : s, later = MIN(k + 1, dwell);
                        Best c = cur[s];

                        if (!c.reached)
                                continue;
                        if (!is_off) {
                                offer(next, fi, later, &c, (uint32_t) s);
                                if (k == dwell && !needed[i] && start_ok[i]) {
                                        c.pages += pages;
                                        c.switches++;
                                        offer(next, fi, dwell + 1 + first, &c, (uint32_t) s);
                                }
                                continue;
                        }
                        if (!needed[i] && !(stop_now[i] && k == dwell)) {
                                c.pages += pages;
                                offer(next, fi, dwell + 1 + later, &c, (uint32_t) s);
                                c = cur[s];
                        }
                        c.switches++;
                        offer(next, fi, first, &c, (uint32_t) s);
                }
                Best *swap = cur;
                cur = next;
                next = swap;
        }

        state = 0;
        for (size_t s = 1; s < states; s++)
                if (better(&cur[s], &cur[state]))
                        state = s;
        for (size_t i = t->n; i-- > 0;) {
                off[i] = state > dwell;
                state = from[i * states + state];
        }
        if (ret_off)
                memcpy(ret_off, off, t->n * sizeof *off);
        return oracle_judge(t, off, ret);
}
