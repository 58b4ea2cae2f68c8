/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sampling: when to take a sample (sampler.h), and the counters carried
 * to the next daemon of this boot, kept by the executor. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manager.h"
#include "manager-internal.h"
#include "sampler.h"
#include "stats.h"
#include "time-util.h"

/* For the next daemon of this boot (carry.h): now, when the counters'
 * state changed meaning (a reset, a source begun, exit), else when the
 * executor says a save is due. */
void manager_carry_save(Manager *m, bool now) {
        _cleanup_(carry_state_done) CarryState s = {};

        if (!executor_counters_due(manager_executor(m), now))
                return;
        sampler_carry_state(manager_sampler(m), &s);
        executor_save_counters(manager_executor(m), &s);
}

/* One sample of the statistics files (sampler.h); with reset, the
 * snapshot before the kernel zeroes the counters. Reads nothing a patched
 * kernel's armed auto would take as a reader. What it found is the
 * engine's news, told by whoever took the sample when it is free to feed
 * the engine (manager_hear_sample()): a snapshot is taken in the middle
 * of carrying out a plan. */
void manager_sample(Manager *m, bool reset) {
        bool changed;

        if (manager_backend(m) == BACKEND_NONE || !engine_may_read_stats(manager_engine(m)))
                return;
        changed = sampler_sample(manager_sampler(m), manager_config(m)->interval,
                                 reset || engine_counting(manager_engine(m)), reset, nodes_topology(manager_nodes(m)));
        manager_carry_save(m, changed);
}

bool manager_sample_for_caller(Manager *m) {
        if (manager_backend(m) == BACKEND_NONE || !engine_may_read_stats(manager_engine(m)))
                return false;
        if (engine_counting(manager_engine(m)))
                manager_sample(m, false);
        return true;            /* read now, or frozen since the last reading */
}

void manager_refresh_zones(Manager *m) {
        nodes_refresh_zones(manager_nodes(m), engine_may_read_stats(manager_engine(m)));
}

void manager_schedule_sampling(Manager *m) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        sd_event_source_set_time(manager_timer(m, MANAGER_TIMER_SAMPLE), now + manager_config(m)->interval);
        sd_event_source_set_enabled(manager_timer(m, MANAGER_TIMER_SAMPLE), SD_EVENT_ON);
}

/* The counters a previous daemon of this boot left (carry.h); refused or
 * absent, they start over from what the kernel shows. */
void manager_load_carried(Manager *m) {
        _cleanup_(carry_state_done) CarryState carried = {};

        if (executor_load_counters(manager_executor(m), &carried) >= 0)
                sampler_continue_from(manager_sampler(m), &carried);
}
