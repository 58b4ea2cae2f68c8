/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The best possible over the daemon's own trace (own-trace.h): the
 * oracle's plan under the policy's thresholds, made in steps so that the
 * loop is never held long (a day of one-second slots is 86400 intervals),
 * and its figures beside the daemon's own until the next plan. Pure. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oracle.h"
#include "own-trace.h"

/* A step's work: intervals × the plan's states (about a millisecond). */
#define BEST_STEP_WORK (256 * 1024)

typedef struct BestFigures {
        uint64_t planned_at;    /* the trace's end (CLOCK_MONOTONIC µs) */
        uint64_t window;        /* µs: the whole slots planned */
        double pages_total;
        double pages_off_best;  /* the best schedule's */
        double pages_off_own;   /* the daemon's */
} BestFigures;

typedef struct BestPlanner BestPlanner;

int best_planner_new(BestPlanner **ret);
BestPlanner *best_planner_free(BestPlanner *b);
/* Starts a plan over t's window until now, under l: -EBUSY while one is
 * under way, -ENODATA before a whole slot, -ENOMEM, -E2BIG (a min_dwell
 * too long to plan). */
int best_planner_begin(BestPlanner *b, const OwnTrace *t, uint64_t now, const OracleLimits *l);
/* Plans about work more: 1 when the plan is done and its figures are in
 * force, 0 while more remains; -EINVAL with none under way. */
int best_planner_step(BestPlanner *b, size_t work);
bool best_planner_busy(const BestPlanner *b);
/* The last finished plan's figures; -ENODATA before one. */
int best_planner_figures(const BestPlanner *b, BestFigures *ret);
