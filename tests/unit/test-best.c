/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's own trace on a fake clock (slots of 10 s here), the best
 * schedule over it beside the daemon's as the planner makes it in steps,
 * and the 24-hour ring. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "best.h"
#include "own-trace.h"
#include "tap.h"

#define SEC UINT64_C(1000000)
#define SLOT (10 * SEC)
#define T0 (1000 * SEC)

#define near(a, b, name) ok(fabs((a) - (b)) < 1e-6, "%s (%g, expected %g)", name, (double) (a), (double) (b))

/* coarse_above 20000, strict_below 5000, sustain one slot, no dwell. */
static const OracleLimits limits = { .coarse_above = 20000, .strict_below = 5000, .sustain = SLOT, .min_dwell = 0 };

/* n slots from slot `from` at rate pages/s, booked once a second, counting off or not. */
static void allocate(OwnTrace *t, uint64_t from, uint64_t n, double rate, bool off) {
        for (uint64_t s = 0; s < n * 10; s++)
                own_trace_pages(t, T0 + from * SLOT + (s + 1) * SEC - 1, (uint64_t) rate, off);
}

/* Plans in small steps, as the daemon does; the figures then. */
static int plan(const OwnTrace *t, uint64_t now, BestFigures *ret) {
        BestPlanner *b;
        int r, steps = 0;

        if (best_planner_new(&b) < 0)
                return -ENOMEM;
        r = best_planner_begin(b, t, now, &limits);
        while (r >= 0 && (r = best_planner_step(b, 64)) == 0)
                steps++;
        if (r >= 0) {
                ok(!best_planner_busy(b), "  the plan is done (%d steps)", steps);
                r = best_planner_figures(b, ret);
        }
        best_planner_free(b);
        return r;
}

static void test_best(void) {
        OwnTrace *t;
        BestFigures b;

        if (own_trace_new(&t) < 0)
                return;
        own_trace_start(t, T0, SLOT);
        is_int(plan(t, T0 + SLOT / 2, &b), -ENODATA, "before a whole slot: nothing to judge");
        /* 10 slots under load: the daemon kept counting on for the first 4. */
        allocate(t, 0, 4, 30000, false);
        allocate(t, 4, 6, 30000, true);
        is_int(plan(t, T0 + 10 * SLOT, &b), 0, "ten whole slots");
        is_u64(b.window, 10 * SLOT, "  the window is the whole slots");
        near(b.pages_total, 10 * 10 * 30000.0, "  pages allocated");
        near(b.pages_off_own, 6 * 10 * 30000.0, "  the daemon's off");
        /* Above from slot 0, sustained from slot 1 (one slot): off from 1. */
        near(b.pages_off_best, 9 * 10 * 30000.0, "  the best: off from the second slot");
        /* The partly booked slot now is not judged. */
        allocate(t, 10, 1, 30000, true);
        is_int(plan(t, T0 + 10 * SLOT + SLOT / 2, &b), 0, "mid-slot");
        is_u64(b.window, 10 * SLOT, "  the slot under way is not judged yet");

        /* A reader reading at 25 s and 75 s needs slots 2..7 on. */
        own_trace_need(t, T0 + 25 * SEC, T0 + 75 * SEC);
        is_int(plan(t, T0 + 11 * SLOT, &b), 0, "a reader needed slots 2 to 7");
        near(b.pages_off_best, (1 + 3) * 10 * 30000.0, "  the best keeps off slots 1, 8, 9 and 10 only");
        ok(own_trace_needed_at(t, T0 + 25 * SEC) && own_trace_needed_at(t, T0 + 79 * SEC) &&
                   !own_trace_needed_at(t, T0 + 80 * SEC) && !own_trace_needed_at(t, T0 + 19 * SEC),
           "  needed: from the slot of one read to the slot of the next");
        own_trace_free(t);
}

static void test_ring(void) {
        OwnTrace *t;
        BestFigures b;
        uint64_t n = OWN_TRACE_WINDOW_USEC / SLOT, end = n + 100;

        if (own_trace_new(&t) < 0)
                return;
        own_trace_start(t, T0, SLOT);
        /* A need at the very start, then a day and more of one booking a slot. */
        own_trace_need(t, T0, T0 + 3 * SLOT);
        for (uint64_t s = 0; s < end; s++)
                own_trace_pages(t, T0 + s * SLOT + SLOT / 2, 300000, s >= 50);
        is_int(plan(t, T0 + end * SLOT, &b), 0, "past 24 hours");
        is_u64(b.window, OWN_TRACE_WINDOW_USEC, "  the window is 24 hours");
        near(b.pages_total, n * 300000.0, "  of what was allocated in them");
        near(b.pages_off_own, n * 300000.0, "  the daemon was off throughout the window");
        /* The window is cut from a longer run: its start is free; the
         * early need is gone with its slots. */
        near(b.pages_off_best, n * 300000.0, "  so could the best be");

        /* A silence of two days: the slots passed hold nothing, not what
         * the ring held a day before. */
        is_int(plan(t, T0 + (end + 2 * n) * SLOT, &b), 0, "after two silent days");
        near(b.pages_total, 0, "  nothing allocated was seen in the window");
        own_trace_pages(t, T0 + (end + 2 * n) * SLOT + 1, 1000, false);
        is_int(plan(t, T0 + (end + 2 * n + 1) * SLOT, &b), 0, "a booking again");
        near(b.pages_total, 1000, "  only it is in the window");
        own_trace_free(t);
}

int main(void) {
        test_best();
        test_ring();
        return tap_done();
}
