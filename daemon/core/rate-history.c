/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "rate-history.h"

void rate_history_reset(RateHistory *h) {
        h->n_min = h->n_max = 0;
}

/* Pushes (t, rate) onto a stack ordered by before(): entries the new sample
 * supersedes merge into its run. */
static void stack_push(RateRun *s, size_t *n, usec_t t, double rate, bool keep_min) {
        usec_t start = t;

        while (*n > 0 && (keep_min ? s[*n - 1].rate >= rate : s[*n - 1].rate <= rate))
                start = s[--*n].start;
        if (*n == RATE_HISTORY_MAX) {
                /* Drop the oldest run: its successor's start is later, so
                 * any answer becomes later, never earlier. */
                memmove(s, s + 1, (RATE_HISTORY_MAX - 1) * sizeof *s);
                (*n)--;
        }
        s[(*n)++] = (RateRun) { .start = start, .rate = rate };
}

void rate_history_add(RateHistory *h, usec_t t, double smoothed, double interval_rate) {
        stack_push(h->min, &h->n_min, t, smoothed, true);
        stack_push(h->max, &h->n_max, t, interval_rate, false);
}

/* The run after the newest one that fails the test: the samples since its
 * start all pass (see the header). */
usec_t rate_history_above_since(const RateHistory *h, double threshold) {
        size_t i = h->n_min;

        if (i == 0 || h->min[i - 1].rate <= threshold)
                return 0;
        while (i > 0 && h->min[i - 1].rate > threshold)
                i--;
        return h->min[i].start;
}

usec_t rate_history_below_since(const RateHistory *h, double threshold) {
        size_t i = h->n_max;

        if (i == 0 || h->max[i - 1].rate >= threshold)
                return 0;
        while (i > 0 && h->max[i - 1].rate < threshold)
                i--;
        return h->max[i].start;
}
