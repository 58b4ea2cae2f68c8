/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "best.h"
#include "macro.h"

struct BestPlanner {
        OwnTraceWindow window;  /* the plan's copy of the trace */
        OracleRun *run;         /* NULL: none under way */
        uint64_t begun_at;
        bool have_figures;
        BestFigures figures;
};

int best_planner_new(BestPlanner **ret) {
        BestPlanner *b = calloc(1, sizeof *b);

        if (!b)
                return -ENOMEM;
        *ret = b;
        return 0;
}

static void plan_done(BestPlanner *b) {
        b->run = oracle_run_free(b->run);
        own_trace_window_done(&b->window);
}

BestPlanner *best_planner_free(BestPlanner *b) {
        if (!b)
                return NULL;
        plan_done(b);
        free(b);
        return NULL;
}

bool best_planner_busy(const BestPlanner *b) {
        return b->run != NULL;
}

int best_planner_begin(BestPlanner *b, const OwnTrace *t, uint64_t now, const OracleLimits *l) {
        OracleTrace trace;
        int r;

        if (b->run)
                return -EBUSY;
        r = own_trace_window(t, now, &b->window);
        if (r < 0)
                return r;
        trace = (OracleTrace) { .interval = b->window.slot_usec, .rate = b->window.rate, .n = b->window.n,
                                .start_free = b->window.start_free, .needed = b->window.needed };
        r = oracle_run_new(&trace, l, false, &b->run);
        if (r < 0) {
                plan_done(b);
                return r;
        }
        b->begun_at = now;
        return 0;
}

int best_planner_step(BestPlanner *b, size_t work) {
        OracleResult res;
        int r;

        if (!b->run)
                return -EINVAL;
        if (oracle_run_step(b->run, work) == 0)
                return 0;
        r = oracle_run_result(b->run, NULL, &res);
        if (r >= 0) {
                b->figures = (BestFigures) {
                        .planned_at = b->begun_at,
                        .window = b->window.n * b->window.slot_usec,
                        .pages_total = b->window.pages_total,
                        .pages_off_best = res.pages_off,
                        .pages_off_own = b->window.pages_off_own,
                };
                b->have_figures = true;
        }
        plan_done(b);
        return r < 0 ? r : 1;
}

int best_planner_figures(const BestPlanner *b, BestFigures *ret) {
        if (!b->have_figures)
                return -ENODATA;
        *ret = b->figures;
        return 0;
}
