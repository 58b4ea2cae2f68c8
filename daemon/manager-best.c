/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The best possible over the daemon's own trace: planned again every
 * minute (sooner while the trace is young), BEST_STEP_WORK at a time, each
 * step a turn of the loop at idle priority, so that no read waits behind
 * a plan. */
#include <errno.h>

#include "log.h"
#include "manager.h"
#include "manager-internal.h"

#define BEST_EVERY_USEC (60 * USEC_PER_SEC)

static int plan_begin(Manager *m, usec_t now) {
        const Engine *e = manager_engine(m);
        PolicyConfig pc;
        int r;

        engine_policy_config(e, &pc);
        r = best_planner_begin(manager_best(m), engine_own_trace(e), now,
                               &(OracleLimits) { .coarse_above = (double) pc.coarse_above,
                                                 .strict_below = (double) pc.strict_below,
                                                 .sustain = pc.sustain,
                                                 .min_dwell = pc.min_dwell });
        if (r == -E2BIG)
                log_debug("The best possible is not planned: min_dwell is too long for the trace's slots.");
        else if (r < 0 && r != -ENODATA)
                log_debug_errno(r, "Cannot plan the best possible: %m");
        return r;
}

/* The next plan: a quarter of the window on (a young trace is planned
 * often, and costs little), at least a slot, at most a minute. */
static usec_t next_plan(Manager *m, usec_t now) {
        usec_t slot = own_trace_slot_usec(engine_own_trace(manager_engine(m)));
        BestFigures f;

        if (best_planner_figures(manager_best(m), &f) < 0)
                return now + slot;
        return now + MIN(MAX(f.window / 4, slot), BEST_EVERY_USEC);
}

void manager_handle_best_due(Manager *m) {
        BestPlanner *b = manager_best(m);
        usec_t now = now_usec(CLOCK_MONOTONIC), at;

        if (!best_planner_busy(b) && plan_begin(m, now) < 0)
                at = next_plan(m, now);
        else
                at = best_planner_step(b, BEST_STEP_WORK) == 0 ? now : next_plan(m, now);
        event_timer_at(manager_timer(m, MANAGER_TIMER_BEST), at);
}
