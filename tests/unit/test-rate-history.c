/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rate history against brute force: for random rate sequences and
 * every threshold, "above since" (of the smoothed rate) and "below since"
 * (of the interval's rate) equal what a full record of the samples says; past its capacity it answers later, never
 * earlier. */

#include <stdlib.h>

#include "macro.h"
#include "rate-history.h"
#include "tap.h"

#define N 120   /* below RATE_HISTORY_MAX: exact */

static usec_t brute_above(const double *r, const usec_t *t, int i, double threshold) {
        usec_t since = 0;
        for (int j = i; j >= 0 && r[j] > threshold; j--)
                since = t[j];
        return since;
}

static usec_t brute_below(const double *r, const usec_t *t, int i, double threshold) {
        usec_t since = 0;
        for (int j = i; j >= 0 && r[j] < threshold; j--)
                since = t[j];
        return since;
}

static void test_against_brute_force(void) {
        unsigned mismatches = 0, checks = 0;

        srand(42);
        for (int trial = 0; trial < 300; trial++) {
                RateHistory h;
                double r[N], q[N];
                usec_t t[N];
                int levels = 2 + trial % 30;    /* few levels: many ties */

                rate_history_reset(&h);
                for (int i = 0; i < N; i++) {
                        /* Half the trials: the interval's rate apart from
                         * the smoothed one, each judged on its own. */
                        r[i] = (double) (rand() % levels) * 1000.0;
                        q[i] = trial % 2 ? (double) (rand() % levels) * 1000.0 : r[i];
                        t[i] = (usec_t) (i + 1) * USEC_PER_SEC;
                        rate_history_add(&h, t[i], r[i], q[i]);
                        for (double th = -500; th <= levels * 1000.0 + 500; th += 500) {
                                checks += 2;
                                if (rate_history_above_since(&h, th) != brute_above(r, t, i, th))
                                        mismatches++;
                                if (rate_history_below_since(&h, th) != brute_below(q, t, i, th))
                                        mismatches++;
                        }
                }
        }
        ok(mismatches == 0, "%u answers equal brute force (%u mismatches)", checks, mismatches);
}

static void test_capacity(void) {
        RateHistory h;
        usec_t since;

        /* A climb longer than the history: the oldest runs are dropped. */
        rate_history_reset(&h);
        for (unsigned i = 0; i < 3 * RATE_HISTORY_MAX; i++)
                rate_history_add(&h, (usec_t) (i + 1) * USEC_PER_SEC, 1000.0 + i, 1000.0 + i);
        since = rate_history_above_since(&h, 0);
        ok(since >= 1 * USEC_PER_SEC, "above 0 since a real sample");
        ok(since > 1 * USEC_PER_SEC, "  later than the truth after the climb overflowed (the safe side)");
        is_u64(rate_history_above_since(&h, 1000.0 + 3 * RATE_HISTORY_MAX - 2),
               (usec_t) (3 * RATE_HISTORY_MAX) * USEC_PER_SEC, "  recent thresholds stay exact");
        is_u64(rate_history_below_since(&h, 5000.0), 1 * USEC_PER_SEC,
               "  the max stack of a climb is one run: below since the first sample");
        is_u64(rate_history_above_since(&h, 1e9), 0, "  never above an unreached threshold");

        rate_history_reset(&h);
        is_u64(rate_history_above_since(&h, 0), 0, "empty: never above");
        is_u64(rate_history_below_since(&h, 1e9), 0, "empty: never below");
}

int main(void) {
        test_against_brute_force();
        test_capacity();
        return tap_done();
}
