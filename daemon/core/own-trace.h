/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's own trace, for the best possible on every host: the pages
 * allocated in each slot (the sampling interval, at least a second) of the
 * last 24 hours, how many of them with counting off, and which slots a
 * counted reader or a hold needed on (a reader: from its previous counted
 * read to this one). Fixed memory: a ring of OWN_TRACE_SLOTS slots of 8
 * bytes and a bit. The best schedule over it under the policy's
 * thresholds is the study's oracle (oracle.c) told the needed slots
 * (best.c plans it). Pure: time comes in (CLOCK_MONOTONIC µs). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OWN_TRACE_SLOTS (24 * 3600)
#define OWN_TRACE_WINDOW_USEC (24 * 3600 * UINT64_C(1000000))
#define OWN_TRACE_MIN_SLOT_USEC UINT64_C(1000000)

typedef struct OwnTrace OwnTrace;

int own_trace_new(OwnTrace **ret);
OwnTrace *own_trace_free(OwnTrace *t);
/* (Re)starts empty at now, with slots of slot_usec (at least
 * OWN_TRACE_MIN_SLOT_USEC); the window is 24 hours, or OWN_TRACE_SLOTS
 * slots if fewer. */
void own_trace_start(OwnTrace *t, uint64_t now, uint64_t slot_usec);
uint64_t own_trace_slot_usec(const OwnTrace *t);
/* Pages allocated until now since the last booking, with counting off or on. */
void own_trace_pages(OwnTrace *t, uint64_t now, uint64_t pages, bool off);
/* Counting had to be on from from to to (a reader's two counted reads, a
 * hold); the part before the window is gone. */
void own_trace_need(OwnTrace *t, uint64_t from, uint64_t to);
bool own_trace_needed_at(const OwnTrace *t, uint64_t at);

/* The whole slots until now as the oracle takes them (a copy: the trace
 * goes on). */
typedef struct OwnTraceWindow {
        uint64_t slot_usec;
        size_t n;
        double *rate;           /* pages/s in each slot */
        bool *needed;
        bool start_free;        /* cut from a longer run: no past binds its start */
        double pages_total, pages_off_own;
} OwnTraceWindow;

/* -ENODATA before a whole slot, -ENOMEM. */
int own_trace_window(const OwnTrace *t, uint64_t now, OwnTraceWindow *ret);
void own_trace_window_done(OwnTraceWindow *w);
