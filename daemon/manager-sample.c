/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sampling: the allocation rate, the continuous counters, and the totals
 * carried to the next daemon of this boot. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manager.h"
#include "manager-private.h"
#include "rootfs.h"
#include "sampler.h"
#include "stats.h"
#include "time-util.h"

/* For the next daemon of this boot (carry.h): now, when the state changed
 * meaning (a reset, a source begun, exit), else at most every
 * CARRY_SAVE_USEC. Between saves nothing is lost: the kernel keeps counting,
 * and the next daemon adds what it counted since the saved reading. Only a
 * reset by someone else after the last save, with every counter grown back
 * past its saved reading before a restart, would pass for growth. A failure
 * costs only continuity after a restart. */
void manager_carry_save(Manager *m, bool now) {
        _cleanup_(carry_state_done) CarryState s = {};
        usec_t t = now_usec(CLOCK_MONOTONIC), saved = m->counts.carry_saved_at;
        int fd = executor_runtime_fd(m->executor), r;

        if (fd < 0 || (!now && saved != 0 && t < saved + CARRY_SAVE_USEC))
                return;
        if (sampler_carry_state(m->counts.sampler, m->root, m->counts.boot_id, &s) < 0)
                return;
        r = carry_state_save(fd, &s);
        if (r < 0 && saved == 0)
                log_warning_errno(r, "Cannot keep the NUMA counters for a restart in %s: %m",
                                  executor_runtime_dir(m->executor));
        m->counts.carry_saved_at = t;
}

/* One sample of the statistics files (sampler.h); with reset, the
 * snapshot before the kernel zeroes the counters. Reads nothing a patched
 * kernel's armed auto would take as a reader. What it found is the
 * engine's news, told by whoever took the sample when it is free to feed
 * the engine (manager_hear_sample()): a snapshot is taken in the middle
 * of carrying out a plan. */
void manager_sample(Manager *m, bool reset) {
        bool changed;

        if (manager_backend(m) == BACKEND_NONE || !engine_may_read_stats(m->engine))
                return;
        changed = sampler_sample(m->counts.sampler, m->config.interval, reset || engine_counting(m->engine), reset,
                                 nodes_topology(m->nodes));
        manager_carry_save(m, changed);
}

bool manager_sample_for_caller(Manager *m) {
        if (manager_backend(m) == BACKEND_NONE || !engine_may_read_stats(m->engine))
                return false;
        if (engine_counting(m->engine))
                manager_sample(m, false);
        return true;            /* read now, or frozen since the last reading */
}

void manager_refresh_zones(Manager *m) {
        nodes_refresh_zones(m->nodes, engine_may_read_stats(m->engine));
}

void manager_schedule_sampling(Manager *m) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        sd_event_source_set_time(m->sample_timer, now + m->config.interval);
        sd_event_source_set_enabled(m->sample_timer, SD_EVENT_ON);
}

/* The counters a previous daemon of this boot left (carry.h); refused or
 * absent, they start over from what the kernel shows. */
void manager_load_carried(Manager *m) {
        _cleanup_free_ char *why = NULL, *boot = NULL;
        _cleanup_(carry_state_done) CarryState carried = {};
        int fd = executor_runtime_fd(m->executor), r;

        if (root_read_file(m->root, "/proc/sys/kernel/random/boot_id", 64, &boot) >= 0) {
                boot[strcspn(boot, "\n")] = '\0';
                snprintf(m->counts.boot_id, sizeof m->counts.boot_id, "%s", boot);
        }
        if (fd < 0)
                return;
        r = carry_state_load(fd, m->root, m->counts.boot_id, &carried, &why);
        if (r == -EPERM)
                log_warning("Not continuing the NUMA counters in %s/%s: %s. They start over.",
                            executor_runtime_dir(m->executor), CARRY_FILE, why ? why : "refused");
        else if (r >= 0) {
                log_info("Continuing the NUMA counters a previous daemon kept (%zu sources).", carried.n);
                sampler_continue_from(m->counts.sampler, &carried);
        }
}
