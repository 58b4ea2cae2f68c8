/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Between the engine and the world: each event fed to the engine, and what
 * it asks done (the journal for what it recorded, the timers, the writes
 * through the executor with each outcome fed back, a decision now). What a
 * reader waits for is manager_decide() and the writes it plans. */
#include <string.h>

#include "journal.h"
#include "log.h"
#include "manager.h"
#include "manager-internal.h"
#include "sampler.h"
#include "stats.h"
#include "time-util.h"

KernelMode manager_exit_mode(const Manager *m) {
        return policy_exit_mode(manager_config(m)->exit_mode, manager_backend(m), manager_initial_mode(m));
}

/* The kernel's mode as read back from the sysctl, taken as it is. */
void manager_set_mode(Manager *m, KernelMode mode) {
        (void) manager_feed(m, &(EngineEvent) { .type = ENGINE_EVENT_KERNEL_MODE, .mode = mode },
                            now_usec(CLOCK_MONOTONIC));
}

void manager_engine_config(const Manager *m, EngineConfig *ret) {
        const Config *c = manager_config(m);

        *ret = (EngineConfig) {
                .backend = manager_backend(m),
                .sysctl_path = backend_sysctl_path(manager_backend(m)),
                .off_mode = c->off_mode,
                .on_external_change = c->on_external_change,
                .min_dwell = c->min_dwell,
                .linger = c->linger,
                .sustain = c->sustain,
                .coarse_above = c->coarse_above,
                .strict_below = c->strict_below,
                .armed_interval = c->armed_interval,
                .sample_interval = c->interval,
                .linger_max = c->linger_max,
                .exit_mode = c->exit_mode,
                .realtime_offset = manager_realtime_offset(m),
                .readers_unseen = !reader_watch_readers(manager_reader_watch(m)),
                .kernel_log = manager_kmsg(m) != NULL,
        };
}

/* The engine's view of the setting: after the backend is known, at each
 * reload, and when reader detection or the kernel's log comes or goes. */
void manager_configure_engine(Manager *m) {
        EngineConfig c;

        manager_engine_config(m, &c);
        (void) manager_feed(m, &(EngineEvent) { .type = ENGINE_EVENT_CONFIGURE, .config = &c },
                            now_usec(CLOCK_MONOTONIC));
}

/* One write of the sysctl, read back, its outcome told to the engine; the
 * counters first, when the write zeroes them. */
static int manager_write(Manager *m, KernelWrite w, const char *why) {
        EngineEffects fx;
        KernelMode now;
        int r;

        if (w.snapshot)
                manager_sample(m, true);
        r = executor_write(manager_executor(m), w.mode, manager_exit_mode(m), why, &now);
        manager_engine_feed(m,
                            &(EngineEvent) { .type = r < 0 ? ENGINE_EVENT_WRITE_FAILED : ENGINE_EVENT_WRITTEN,
                                             .mode = r < 0 ? now : w.mode },
                            now_usec(CLOCK_MONOTONIC), &fx);
        if (r < 0)
                return r;
        /* Our writes log too; a read that triggered the auto just written
         * logs after them: read the log now, with the state set. */
        take_kernel_log(m);
        return 0;
}

/* Carries out a plan (kernel_state_plan()): its writes in order, up to the
 * first that fails. */
static int manager_carry_out(Manager *m, const KernelPlan *plan, const char *why) {
        int r;

        for (size_t i = 0; i < plan->n_writes; i++) {
                r = manager_write(m, plan->writes[i], why);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* engine_feed(), with the wall clock's time for what it records. */
void manager_engine_feed(Manager *m, const EngineEvent *ev, usec_t now, EngineEffects *fx) {
        EngineEvent stamped = *ev;

        stamped.realtime = now_usec(CLOCK_REALTIME);
        engine_feed(manager_engine(m), &stamped, now, fx);
}

/* Counting flipped: the pages allocated until now are the state before's,
 * so the engine wants a reading now; not while a patched kernel's auto is
 * armed, where our own read would trigger it (then they are booked to the
 * state after, at the next reading). A sample's reading not yet told is
 * older than this one: it goes. */
static void manager_allocated_now(Manager *m, usec_t now) {
        EngineEvent ev = { .type = ENGINE_EVENT_ALLOCATED };
        VmStat vs;

        sampler_drop_pgalloc(manager_sampler(m));
        if (manager_backend(m) != BACKEND_NONE && engine_may_read_stats(manager_engine(m)) &&
            stats_read_vmstat(manager_root(m), NULL, &vs) >= 0 && vs.has_pgalloc) {
                ev.has_pgalloc = true;
                ev.pgalloc = vs.pgalloc;
        }
        (void) manager_feed(m, &ev, now);
}

/* Does what the engine asked for, in order: records, timers, the kernel's
 * writes (their outcome fed back), a decision it wants taken now. Returns
 * the first failed write's error. */
int manager_effects(Manager *m, EngineEffects *fx, usec_t now) {
        bool switched = false;
        int r = 0, k;

        for (size_t i = 0; i < fx->n_records; i++) {
                journal_transition(fx->records[i]);
                switched |= fx->records[i]->kind == TRANSITION_POLICY;
        }
        if (switched && nodes_zones_stale(manager_nodes(m)))
                manager_refresh_zones(m);
        if (fx->set_settle)
                event_timer_at(manager_timer(m, MANAGER_TIMER_TRIGGER_SETTLE), fx->settle_at);
        if (fx->set_armed_sample)
                event_timer_at(manager_timer(m, MANAGER_TIMER_ARMED_SAMPLE), fx->armed_sample_at);
        if (fx->clear_error)
                executor_clear_error(manager_executor(m));
        if (fx->allocated_wanted)
                manager_allocated_now(m, now);
        if (fx->deadline_now) {
                log_debug("Read events queued: counting off after they are handled.");
                manager_deadline_now(m);
        }
        if (fx->committed)
                manager_schedule_deadline(m);
        if (fx->changed)
                manager_state_changed(m);
        if (fx->plan.kind == KERNEL_PLAN_WRITES) {
                EngineEffects done;

                r = manager_carry_out(m, &fx->plan, engine_decision(manager_engine(m))->reason);
                /* Dated at its decision, as the switch is (a read's own time). */
                manager_engine_feed(m, &(EngineEvent) { .type = ENGINE_EVENT_PLAN_DONE }, now, &done);
                k = manager_effects(m, &done, now);
                if (r >= 0)
                        r = k;
                /* The snapshot before a reset may have given a rate. */
                manager_hear_sample(m);
        }
        if (fx->decide) {
                k = manager_decide(m, now);
                if (r >= 0)
                        r = k;
        }
        return r;
}

/* What the samples found and the engine has not heard, at the sample's
 * time: the pages allocated, then the rate. */
void manager_hear_sample(Manager *m) {
        SampleNews news;

        if (!sampler_take_news(manager_sampler(m), &news))
                return;
        if (news.has_pgalloc)
                (void) manager_feed(m,
                                    &(EngineEvent) { .type = ENGINE_EVENT_ALLOCATED,
                                                     .has_pgalloc = true,
                                                     .pgalloc = news.pgalloc },
                                    news.at);
        if (news.has_rate)
                (void) manager_feed(m,
                                    &(EngineEvent) { .type = ENGINE_EVENT_RATE,
                                                     .rate = news.rate,
                                                     .interval_rate = news.interval_rate },
                                    news.at);
}

int manager_feed(Manager *m, const EngineEvent *ev, usec_t now) {
        EngineEffects fx;

        manager_engine_feed(m, ev, now, &fx);
        return manager_effects(m, &fx, now);
}

/* Reads not handled yet: queued in the fanotify group, or parked until an
 * exit record names their reader (they are taken on the loop's next
 * turns). A switch off, or an armed sample, waits for them. */
bool manager_reads_queued(const Manager *m) {
        return readers_pending(reader_watch_readers(manager_reader_watch(m))) > 0 ||
               exits_parked(manager_exits(m)) > 0;
}

/* Reads the kernel back (someone else may have changed it) and has the
 * engine decide at now: a read's own time, so that the switch it causes is
 * dated at the read. */
int manager_decide(Manager *m, usec_t now) {
        KernelMode found = KERNEL_MODE_UNKNOWN;

        if (manager_backend(m) != BACKEND_NONE && executor_read(manager_executor(m), &found) < 0)
                found = KERNEL_MODE_UNKNOWN;
        return manager_feed(m,
                            &(EngineEvent) { .type = ENGINE_EVENT_DECIDE,
                                             .found = found,
                                             .reads_queued = manager_reads_queued(m) },
                            now);
}

const char *manager_last_error(const Manager *m) {
        return executor_last_error(manager_executor(m))->message;
}

int manager_apply(Manager *m) {
        return manager_decide(m, now_usec(CLOCK_MONOTONIC));
}

int manager_handle_set_policy(Manager *m, Policy policy, int dry_run) {
        Engine *e = manager_engine(m);
        int r;

        log_info("Policy set to %s%s by a client (was %s%s).", policy_to_string(policy),
                 dry_run > 0 ? ", dry run" : dry_run == 0 ? ", no dry run" : "",
                 policy_to_string(engine_policy(e)), engine_dry_run(e) ? ", dry run" : "");
        r = manager_feed(m,
                         &(EngineEvent) { .type = ENGINE_EVENT_SET_POLICY,
                                          .policy = policy,
                                          .policy_source = CAUSE_OPERATOR,
                                          .dry_run = dry_run >= 0 ? dry_run : engine_dry_run(e) },
                         now_usec(CLOCK_MONOTONIC));
        return r < 0 ? r : engine_dry_run(e);
}

int manager_restore(Manager *m) {
        KernelMode to = manager_exit_mode(m);
        KernelMode now = KERNEL_MODE_UNKNOWN;
        KernelState before;
        int r;

        if (to == KERNEL_MODE_UNKNOWN)
                return 0;
        /* A dry run never wrote; leave the kernel as the admin has it. But if
         * we did write before dry run was turned on, undo our doing. */
        if (engine_dry_run(manager_engine(m)) && !executor_wrote(manager_executor(m)))
                return 0;

        (void) executor_read(manager_executor(m), &now);
        if (now == to) {
                log_info("Leaving NUMA statistics in %s (exit_mode=%s).", kernel_mode_to_string(to),
                         exit_mode_to_string(manager_config(m)->exit_mode));
                return 0;
        }
        manager_set_mode(m, now);
        before = *engine_kernel(manager_engine(m));
        /* "previous" may be auto: written over strict, it keeps counting on,
         * which is what a stopping daemon should leave. */
        r = manager_write(m, kernel_state_write(&before, to), "daemon stopping");
        if (r < 0)
                return r;
        return manager_feed(m, &(EngineEvent) { .type = ENGINE_EVENT_RESTORED, .from = before },
                            now_usec(CLOCK_MONOTONIC));
}

/* ---- the kernel's log ---- */

void manager_handle_trigger_settled(Manager *m) {
        /* The kernel logged a trigger and no read event claimed it. */
        take_kernel_log(m);
        (void) manager_feed(m, &(EngineEvent) { .type = ENGINE_EVENT_TRIGGER_SETTLED }, now_usec(CLOCK_MONOTONIC));
}

/* What the kernel logged: only its auto's trigger is news (our own writes,
 * or the admin's: the sysctl says those). */
void manager_handle_kernel_log(Manager *m, const unsigned counts[_KMSG_NUMA_MAX]) {
        if (counts[KMSG_NUMA_AUTO_TRIGGERED] > 0)
                (void) manager_feed(m, &(EngineEvent) { .type = ENGINE_EVENT_KERNEL_LOG_TRIGGER },
                                    now_usec(CLOCK_MONOTONIC));
}

/* What the kernel logged until now, taken in order before what comes
 * next (a read, or the rest of a plan). */
void take_kernel_log(Manager *m) {
        unsigned counts[_KMSG_NUMA_MAX];

        if (kmsg_monitor_take(manager_kmsg(m), counts) > 0)
                manager_handle_kernel_log(m, counts);
}
