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
#include "stats.h"
#include "time-util.h"

static NodeTrack *manager_node_track(Manager *m, int id) {
        NodeTrack *a;

        for (size_t i = 0; i < m->counts.n_nodes; i++)
                if (m->counts.nodes[i].id == id)
                        return &m->counts.nodes[i];
        a = reallocarray(m->counts.nodes, m->counts.n_nodes + 1, sizeof *a);
        if (!a)
                return NULL;
        m->counts.nodes = a;
        a[m->counts.n_nodes] = (NodeTrack){ .id = id };
        return &a[m->counts.n_nodes++];
}

/* A source's first reading: from the previous daemon's count, if it left
 * one (carry.h). */
static void track_begin(Manager *m, CounterTrack *t, int id, const NumaCounters *reading) {
        const CarrySource *c = carry_state_find(&m->counts.carried, id);

        if (c)
                counter_track_resume(t, reading, &c->continuous, &c->last);
        else
                counter_track_start(t, reading);
}

/* Returns true when the carried state changed meaning: a source begun, or
 * a reset by someone else. */
static bool track_feed(Manager *m, CounterTrack *t, int id, const NumaCounters *reading, const char *what) {
        if (!t->started) {
                track_begin(m, t, id, reading);
                return true;
        }
        if (!counter_track_update(t, reading))
                return false;
        m->counts.external_resets++;
        log_notice("NUMA counters of %s went backwards: reset by someone else; kept what was counted before.", what);
        return true;
}

/* A reading for track t: the counters before a reset we cause (the next
 * reading continues from them), or one more reading to follow. Returns
 * true when the carried state must be saved now (see manager_carry_save()). */
static bool track_take(Manager *m, CounterTrack *t, int id, const NumaCounters *reading, const char *what,
                       bool reset) {
        if (!reset)
                return track_feed(m, t, id, reading, what);
        if (!t->started)
                track_begin(m, t, id, reading);
        counter_track_reset(t, reading);
        return true;
}

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
        s.root = strdup(m->root);
        if (!s.root)
                return;
        snprintf(s.boot_id, sizeof s.boot_id, "%s", m->counts.boot_id);
        if (m->counts.vmstat.started) {
                CarrySource *c = &s.sources[s.n++];

                *c = (CarrySource) { .id = CARRY_VMSTAT, .last = m->counts.vmstat.last };
                counter_track_continuous(&m->counts.vmstat, &c->continuous);
        }
        for (size_t i = 0; i < m->counts.n_nodes && s.n < CARRY_SOURCES_MAX; i++) {
                CarrySource *c;

                if (!m->counts.nodes[i].track.started)
                        continue;
                c = &s.sources[s.n++];
                *c = (CarrySource) { .id = m->counts.nodes[i].id, .last = m->counts.nodes[i].track.last };
                counter_track_continuous(&m->counts.nodes[i].track, &c->continuous);
        }
        r = carry_state_save(fd, &s);
        if (r < 0 && saved == 0)
                log_warning_errno(r, "Cannot keep the NUMA counters for a restart in %s: %m",
                                  executor_runtime_dir(m->executor));
        m->counts.carry_saved_at = t;
}

/* One sample of the statistics files: the allocation rate from the
 * pgalloc_* lines (which no mode affects), and the NUMA counters into their
 * tracks. With reset, the kernel is about to zero the counters: this is the
 * snapshot that keeps what they held. Reads nothing a patched kernel's
 * armed auto would take as a reader. */
void manager_sample(Manager *m, bool reset) {
        bool counters = reset || engine_counting(m->engine), save_now = false;
        usec_t now;
        VmStat vs;
        int r;

        if (manager_backend(m) == BACKEND_NONE || !engine_may_read_stats(m->engine))
                return;
        r = stats_read_vmstat(m->root, &vs);
        m->counts.samples++;
        /* The rate is per the clock at the reading, not a timer's schedule:
         * a late wakeup must not inflate it. */
        now = now_usec(CLOCK_MONOTONIC);
        if (r >= 0 && !vs.has_pgalloc && !m->counts.rate_error) {
                /* Said once: it will not change while the kernel runs. */
                m->counts.rate_error = strdup("no pgalloc_* lines in /proc/vmstat (a kernel without "
                                       "CONFIG_VM_EVENT_COUNTERS): allocation rate unknown, "
                                       "auto keeps counting on");
                log_warning("%s.", m->counts.rate_error);
        }
        /* The pages allocated and a new rate are the engine's news, told
         * by whoever took the sample when it is free to feed the engine
         * (manager_hear_sample()): a snapshot is taken in the middle of
         * carrying out a plan. */
        if (r >= 0 && vs.has_pgalloc) {
                m->counts.pgalloc_unheard = true;
                m->counts.pgalloc = vs.pgalloc;
                m->counts.sampled_at = now;
                if (rate_meter_sample(&m->counts.rate, now, vs.pgalloc, 3 * m->config.interval, m->config.interval))
                        m->counts.rate_unheard = true;
        }

        /* While the kernel does not count, the counters stay frozen at zero:
         * nothing to follow until counting is back. */
        if (!counters)
                return;
        if (r >= 0 && vs.has_numa)
                save_now |= track_take(m, &m->counts.vmstat, CARRY_VMSTAT, &vs.numa, "/proc/vmstat", reset);
        for (size_t i = 0; i < m->hotplug.topology.n_nodes; i++) {
                int id = m->hotplug.topology.nodes[i].id;
                NodeTrack *nt = manager_node_track(m, id);
                NumaCounters c;
                char what[32];

                if (!nt || stats_read_node_numastat(m->root, id, &c) < 0)
                        continue;
                snprintf(what, sizeof what, "node%d", id);
                save_now |= track_take(m, &nt->track, id, &c, what, reset);
        }
        if (reset)
                m->counts.resets++;
        manager_carry_save(m, save_now);
}

bool manager_sample_for_caller(Manager *m) {
        if (manager_backend(m) == BACKEND_NONE || !engine_may_read_stats(m->engine))
                return false;
        if (engine_counting(m->engine))
                manager_sample(m, false);
        return true;            /* read now, or frozen since the last reading */
}

void manager_refresh_zones(Manager *m) {
        ZoneThreshold *z = NULL;
        size_t n = 0;
        int r;

        if (!engine_may_read_stats(m->engine)) {
                m->hotplug.zones_stale = true;
                return;
        }
        r = stats_read_zoneinfo(m->root, &z, &n);
        if (r < 0) {
                log_debug_errno(r, "Cannot read counter precision from /proc/zoneinfo: %m");
                return;
        }
        free(m->hotplug.zones);
        m->hotplug.zones = z;
        m->hotplug.n_zones = n;
        m->hotplug.zones_stale = false;
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
        int fd = executor_runtime_fd(m->executor), r;

        if (root_read_file(m->root, "/proc/sys/kernel/random/boot_id", 64, &boot) >= 0) {
                boot[strcspn(boot, "\n")] = '\0';
                snprintf(m->counts.boot_id, sizeof m->counts.boot_id, "%s", boot);
        }
        if (fd < 0)
                return;
        r = carry_state_load(fd, m->root, m->counts.boot_id, &m->counts.carried, &why);
        if (r == -EPERM)
                log_warning("Not continuing the NUMA counters in %s/%s: %s. They start over.",
                            executor_runtime_dir(m->executor), CARRY_FILE, why ? why : "refused");
        else if (r >= 0)
                log_info("Continuing the NUMA counters a previous daemon kept (%zu sources).", m->counts.carried.n);
}
