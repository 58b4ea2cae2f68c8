/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's own trace on a fake clock: slots, the needed bits, the
 * window the oracle is given, and the ring over a day. */
#include <errno.h>
#include <math.h>

#include "own-trace.h"
#include "tap.h"

#define SEC UINT64_C(1000000)
#define T0 (1000 * SEC)

int main(void) {
        OwnTrace *t;
        OwnTraceWindow w;
        uint64_t day = OWN_TRACE_WINDOW_USEC / (2 * SEC);

        if (!ok(own_trace_new(&t) >= 0, "a trace"))
                return tap_done();
        own_trace_start(t, T0, SEC / 2);
        is_u64(own_trace_slot_usec(t), SEC, "slots of the sampling interval, at least a second");
        own_trace_start(t, T0, 2 * SEC);
        is_int(own_trace_window(t, T0 + SEC, &w), -ENODATA, "no whole slot yet");

        own_trace_pages(t, T0 + SEC, 1000, false);
        own_trace_pages(t, T0 + 3 * SEC, 3000, true);
        own_trace_pages(t, T0 + 3 * SEC + 1, 1000, false);
        own_trace_need(t, T0 + 3 * SEC, T0 + 5 * SEC);
        is_int(own_trace_window(t, T0 + 6 * SEC + 1, &w), 0, "three whole slots");
        is_int((int) w.n, 3, "  three");
        ok(w.rate[0] == 500 && w.rate[1] == 2000 && w.rate[2] == 0, "  each slot's pages a second (%g %g %g)", w.rate[0],
           w.rate[1], w.rate[2]);
        ok(!w.needed[0] && w.needed[1] && w.needed[2], "  needed from the slot of one read to the slot of the next");
        ok(w.pages_total == 5000 && w.pages_off_own == 3000, "  5000 pages, 3000 with counting off");
        ok(!w.start_free, "  from the start: it binds (counting on, a switch just then)");
        ok(own_trace_needed_at(t, T0 + 4 * SEC) && !own_trace_needed_at(t, T0 + SEC), "needed_at says the same");
        own_trace_window_done(&w);

        /* A day and a slot later: the window is the last day, cut from a
         * longer run; the first slots are gone with what they needed. */
        for (uint64_t k = 3; k <= day + 2; k++)
                own_trace_pages(t, T0 + k * 2 * SEC, 2, false);
        is_int(own_trace_window(t, T0 + (day + 3) * 2 * SEC, &w), 0, "a day on");
        is_u64(w.n, day, "  the window is a day of slots");
        ok(w.start_free, "  free at its start");
        ok(fabs(w.pages_total - 2.0 * (double) day) < 1e-6 && !w.needed[0], "  only the day's pages (%g)",
           w.pages_total);
        own_trace_window_done(&w);
        ok(!own_trace_needed_at(t, T0 + 4 * SEC), "a need older than the window is gone");
        own_trace_free(t);
        return tap_done();
}
