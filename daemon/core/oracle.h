/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The best schedule any policy could follow over a recorded trace, to
 * measure policies against. Pure.
 *
 * The trace is n sampling intervals of one length, each with the
 * allocation rate sampled at its start, and the counted reads (time and
 * reader). The oracle knows the future; it is bound only by what binds
 * every policy under the same thresholds:
 *   - service: each counted read after a reader's first finds counting on
 *     since that reader's previous read, so the intervals from one read to
 *     the next are on (first reads need nothing: no policy can serve them);
 *   - pressure: counting goes off only in an interval whose sample has
 *     been above coarse_above for sustain, and stays off only while the
 *     rate has not been below strict_below for sustain;
 *   - min_dwell: counting goes off no sooner than min_dwell after the last
 *     switch (the start counts as one, unless start_free); it may come on at any time, and
 *     the rate low for sustain forces it on once min_dwell has passed.
 * Within those it keeps counting off for as many pages as it can.
 *
 * With no_foresight it is the best a policy can do that cannot see the
 * future but serves every reader that keeps its pace: after each
 * reader's last read it must serve one more at the same interval as the
 * last two (a reader that read once has no pace: nothing more). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct OracleRead {
        uint64_t at;            /* µs since the trace's start */
        unsigned reader;        /* reads by one reader share it */
} OracleRead;

typedef struct OracleTrace {
        uint64_t interval;      /* µs, every interval's */
        const double *rate;     /* pages/s, one per interval */
        size_t n;
        const OracleRead *reads;        /* counted reads, in any order */
        size_t n_reads;
        /* No past binds the start: counting may be on or off there, the
         * last switch min_dwell ago or more (a trace cut from a longer
         * run). Else the start is on, a switch just then. */
        bool start_free;
        /* Instead of reads: the intervals that must be on, worked out as
         * the reads came (the daemon's own record, which keeps no reads).
         * Then the served figures are 0, and without ret_off the schedule
         * is not kept: the figures come from the best state alone, in
         * memory of the states, not of the trace. */
        const bool *needed;
} OracleTrace;

typedef struct OracleLimits {
        double coarse_above, strict_below;      /* pages/s */
        uint64_t sustain, min_dwell;            /* µs */
        bool no_foresight;
} OracleLimits;

typedef struct OracleResult {
        double pages_total;     /* sum of rate × interval */
        double pages_off;       /* ...in the intervals with counting off */
        unsigned switches;      /* on→off and off→on */
        size_t servable;        /* counted reads after their reader's first */
        size_t served;          /* ...that the schedule served */
} OracleResult;

/* The oracle's schedule: off[i] for each interval (ret_off may be NULL),
 * and its figures. -EINVAL for a zero interval, -E2BIG for a trace too
 * long to plan (n × 2 × min_dwell/interval past ORACLE_MAX_STATES), -ENOMEM. */
#define ORACLE_MAX_STATES (16 * 1024 * 1024)
int oracle_schedule(const OracleTrace *t, const OracleLimits *l, bool *ret_off, OracleResult *ret);

/* Any schedule's figures over the trace (pressure and dwell not checked):
 * for comparing a policy's recorded schedule with the oracle's. */
int oracle_judge(const OracleTrace *t, const bool *off, OracleResult *ret);

/* The same planning in steps, for a caller that must not be held long (the
 * daemon's own trace, 86400 intervals): new, then step until it returns 1,
 * then the result. keep: the schedule is kept (ret_off, and the served
 * figures from the reads); without it the trace must give needed, and
 * the memory is that of the states only. t and its arrays must stay valid
 * and unchanged until the run is freed. */
typedef struct OracleRun OracleRun;
int oracle_run_new(const OracleTrace *t, const OracleLimits *l, bool keep, OracleRun **ret);
/* Plans about work (intervals × states) more; returns 1 once every
 * interval is planned, 0 if some remain. */
int oracle_run_step(OracleRun *r, size_t work);
/* -EBUSY until done. ret_off (may be NULL) needs keep. */
int oracle_run_result(const OracleRun *r, bool *ret_off, OracleResult *ret);
OracleRun *oracle_run_free(OracleRun *r);
static inline void oracle_run_freep(OracleRun **r) {
        oracle_run_free(*r);
}
