/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The timers' handlers (the dispatch loop calls them): the sample and the
 * armed auto's sample; the deadline's is manager_apply(). Each takes its
 * reading, tells the engine and returns; the sampling below it feeds no
 * one. */
#include "manager.h"
#include "manager-internal.h"
#include "time-util.h"

void manager_handle_sample(Manager *m, uint64_t usec) {
        uint64_t now, next;

        /* Armed, this reads nothing: the armed sampler has the rate then. The
         * meter keeps its last reading, so the next one gives the average. */
        manager_sample(m, false);
        manager_hear_sample(m);
        /* Our reads queued events of our own (dropped when they are taken):
         * a switch off waits for them as for any queued read (the plan says
         * so), one loop turn, rather than this handler draining the source. */
        (void) manager_apply(m);

        /* Keep the cadence; after a stall, do not catch up in a burst. */
        now = now_usec(CLOCK_MONOTONIC);
        next = usec + manager_config(m)->interval;
        if (next <= now)
                next = now + manager_config(m)->interval;
        sd_event_source_set_time(manager_timer(m, MANAGER_TIMER_SAMPLE), next);
}

/* While armed the daemon reads no statistics, so it would not know the
 * pressure dropped. Every armed_interval it samples anyway: the read turns
 * the kernel's auto on, and the policy re-arms at once (or, the pressure
 * gone, switches counting on). Cost: one counter reset (kept by the
 * snapshot) and two sysctl writes per sample. */
void manager_handle_armed_sample(Manager *m) {
        unsigned logged[_KMSG_NUMA_MAX];

        if (!engine_armed(manager_engine(m)))
                return;
        /* Reads queued while armed turned it on before this sample could:
         * they are taken first, in their own turns (the trigger is theirs);
         * the sample waits for them, and is moot if one did. */
        if (manager_reads_queued(m)) {
                event_timer_at(manager_timer(m, MANAGER_TIMER_ARMED_SAMPLE), now_usec(CLOCK_MONOTONIC));
                return;
        }
        (void) manager_feed(m, &(EngineEvent) { .type = ENGINE_EVENT_ARMED_SAMPLE }, now_usec(CLOCK_MONOTONIC));
        manager_sample(m, false);
        manager_hear_sample(m);
        /* Our own read's trigger, read back: the kernel logs it inside the
         * read, so it is there already. */
        (void) kmsg_monitor_take(manager_kmsg(m), logged);
        (void) manager_feed(m,
                            &(EngineEvent) { .type = ENGINE_EVENT_ARMED_SAMPLE_DONE,
                                             .confirmed = logged[KMSG_NUMA_AUTO_TRIGGERED] > 0 },
                            now_usec(CLOCK_MONOTONIC));
}
