/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The allocation rate's recent past, kept so that "above coarse_above
 * since when?" can be answered for any threshold, at any time: a reload
 * that changes a threshold re-judges at once with the samples' own
 * timestamps, rather than with a since-time set under the old one. Pure.
 *
 * A rise is judged on the smoothed rate (a burst must not switch counting
 * off), a fall on each interval's own rate: the smoothing would see a quiet
 * stretch begin a few intervals late, and sustain already guards against a
 * momentary dip.
 *
 * Two monotonic stacks: the suffix minima of the smoothed rate (for "above
 * T since") and the suffix maxima of the interval's rate (for "below T
 * since"). Each entry is a run of samples: the time of its first sample and
 * the run's extreme. A monotone climb longer than RATE_HISTORY_MAX drops the
 * oldest entry, which can only make a since-time later than the truth,
 * never earlier: the slow, safe side. */

#include <stdbool.h>
#include <stddef.h>

#include "strutil.h"

#define RATE_HISTORY_MAX 128

typedef struct RateRun {
        usec_t start;           /* the run's first sample */
        double rate;            /* its minimum (min stack) or maximum (max stack) */
} RateRun;

typedef struct RateHistory {
        RateRun min[RATE_HISTORY_MAX];  /* rates strictly increasing, oldest first */
        size_t n_min;
        RateRun max[RATE_HISTORY_MAX];  /* rates strictly decreasing, oldest first */
        size_t n_max;
} RateHistory;

void rate_history_reset(RateHistory *h);
/* A sample at time t (> 0; times never go backwards): the smoothed rate
 * and the rate over the interval that ended at t. */
void rate_history_add(RateHistory *h, usec_t t, double smoothed, double interval_rate);
/* Since when every smoothed sample has been > threshold; 0 if the latest
 * is not (or there is none). */
usec_t rate_history_above_since(const RateHistory *h, double threshold);
/* Since when every interval's rate has been < threshold; 0 if the latest
 * is not. */
usec_t rate_history_below_since(const RateHistory *h, double threshold);
