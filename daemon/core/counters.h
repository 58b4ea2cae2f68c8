/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Continuous NUMA counters across the resets a mode switch causes. Pure:
 * the manager feeds it readings, it keeps what was counted since start.
 *
 * For each source (one per node's numastat, plus /proc/vmstat's numa_*
 * lines) it keeps a baseline (the reading when counting from it began) and
 * an accumulated total of everything counted before the last reset. The
 * total since the daemon started is accumulated + (current - baseline). A
 * reading below the previous one means the kernel reset the counters
 * behind our back (someone else's sysctl): what was seen up to the last
 * reading is kept, and counting restarts from zero. */

#include <stdbool.h>
#include <stdint.h>

#include "parsers.h"

typedef struct CounterTrack {
        NumaCounters initial;   /* the first reading: what the kernel had counted before us */
        NumaCounters accumulated;
        NumaCounters baseline;
        NumaCounters last;      /* the last reading */
        bool started;
} CounterTrack;

/* First reading: the daemon counts from here. */
void counter_track_start(CounterTrack *t, const NumaCounters *reading);
/* First reading of a daemon that continues an earlier one's count: that
 * one's continuous value, and the kernel's reading then (carry.h). Counted
 * since: reading - last, or, if any counter went back (the kernel zeroed
 * them meanwhile), reading itself. */
void counter_track_resume(CounterTrack *t, const NumaCounters *reading, const NumaCounters *continuous,
                          const NumaCounters *last);
/* A periodic or on-demand reading. Returns true if it detected a reset. */
bool counter_track_update(CounterTrack *t, const NumaCounters *reading);
/* The kernel is about to zero the counters (we switch): reading is the
 * snapshot taken just before; afterwards counting restarts from zero. */
void counter_track_reset(CounterTrack *t, const NumaCounters *snapshot_before);
/* Counted since the daemon started (uses the last reading). */
void counter_track_total(const CounterTrack *t, NumaCounters *ret);
/* What the kernel would show had nothing ever been reset since the daemon
 * started: the first reading plus everything counted since. */
void counter_track_continuous(const CounterTrack *t, NumaCounters *ret);

/* One node's numastat, continuous. */
typedef struct NodeTrack {
        int id;
        CounterTrack track;
} NodeTrack;

/* Time counting was on, for the "share of time counting" figure. */
typedef struct OnTime {
        uint64_t on_usec, total_usec;
        uint64_t since;         /* when the time was last folded in */
        uint64_t started;       /* on_time_start()'s now */
        uint64_t on_since;      /* when counting last came on, if on */
        bool on;
} OnTime;

void on_time_start(OnTime *o, uint64_t now, bool on);
void on_time_set(OnTime *o, uint64_t now, bool on);
/* Share 0..1 of the time since start that counting was on, up to now. */
double on_time_share(const OnTime *o, uint64_t now);
/* Time with counting on and off since start, up to now (µs). */
void on_time_totals(const OnTime *o, uint64_t now, uint64_t *ret_on, uint64_t *ret_off);

/* Allocation rate from successive pgalloc totals, smoothed with an
 * exponentially weighted moving average whose time constant is tau; and
 * the rate over the last sampling interval. A sample taken off the
 * sampling schedule (for a caller, at a switch) may come milliseconds
 * after the previous one, where a rate is mostly noise: the interval rate
 * is taken over at least half a window. */
typedef struct RateMeter {
        bool have_sample, have_rate;
        uint64_t last_time;     /* µs */
        uint64_t last_value;
        double rate;            /* smoothed pages/s */
        double instant;         /* since the previous sample */
        bool have_window;       /* a window has closed since the (re)start */
        uint64_t window_time;   /* µs: where the open window began */
        uint64_t window_value;
        double interval_rate;   /* over the last closed window (the smoothed rate before one closed) */
} RateMeter;

/* Returns true once a rate exists (from the second sample on). A total
 * that went backwards (cannot happen for pgalloc, but a tree can do it)
 * restarts the meter. window_usec: the sampling interval. */
bool rate_meter_sample(RateMeter *m, uint64_t now, uint64_t value, uint64_t tau_usec, uint64_t window_usec);

/* The benefit ledger: pages allocated (the pgalloc_* total, which no mode
 * affects) while the kernel counted and while it did not. Each reading's
 * delta goes to the state since the previous reading, so the manager takes
 * a reading at every switch. A total that went backwards restarts from it. */
typedef struct Ledger {
        bool have_last;
        bool counting;          /* the state since the last reading */
        uint64_t last;          /* the last pgalloc total */
        uint64_t pages_on, pages_off;
} Ledger;

void ledger_start(Ledger *l, uint64_t pgalloc, bool counting);
/* A reading: the delta since the last goes to the current state. */
void ledger_sample(Ledger *l, uint64_t pgalloc);
/* The state changes now: pgalloc is a reading taken at the change. */
void ledger_set_counting(Ledger *l, uint64_t pgalloc, bool counting);
/* Share 0..1 of the pages allocated with counting off (0 before any). */
double ledger_share_off(const Ledger *l);
