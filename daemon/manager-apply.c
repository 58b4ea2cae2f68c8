/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Deciding and applying: check the kernel, decide, carry out the plan that
 * gets the kernel there (kernel_state_plan()), then commit the record.
 * What a reader waits for is manager_decide() and manager_execute(). */
#include <string.h>

#include "log.h"
#include "manager.h"
#include "manager-private.h"
#include "stats.h"
#include "time-util.h"

KernelMode manager_exit_mode(const Manager *m) {
        return policy_exit_mode(m->config.exit_mode, manager_backend(m), m->initial_mode);
}

/* One write of the sysctl, read back; the counters first, when the write
 * zeroes them. */
static int manager_write(Manager *m, KernelWrite w, const char *why) {
        KernelMode now;
        int r;

        if (w.snapshot)
                manager_sample(m, true);
        r = executor_write(m->executor, w.mode, manager_exit_mode(m), why, &now);
        if (r < 0) {
                manager_set_mode(m, now);
                return r;
        }
        /* auto over coarse: armed, counting off until the next read. */
        m->kernel = (KernelState) {
                .mode = w.mode,
                .auto_state = w.mode == KERNEL_MODE_AUTO && m->kernel.mode == KERNEL_MODE_COARSE ? AUTO_STATE_ARMED
                              : w.mode == KERNEL_MODE_AUTO                                    ? AUTO_STATE_UNKNOWN
                                                                                              : AUTO_STATE_NONE,
        };
        /* Our writes log too; a read that triggered the auto just written
         * logs after them: read the log now, with the state set. */
        kmsg_monitor_drain(m->kauto.kmsg);
        return 0;
}

/* Carries out a plan (kernel_state_plan()): its writes in order, up to the
 * first that fails. Arming leaves a patched kernel's auto counting off
 * until the next read of a statistics file, and samples it now and then. */
static int manager_carry_out(Manager *m, const KernelPlan *plan, const char *why) {
        usec_t now;
        int r;

        if (plan->action == KERNEL_ACTION_ARM)
                m->kauto.trigger_pending = false;       /* one logged before now: this arming supersedes it */
        for (size_t i = 0; i < plan->n_writes; i++) {
                r = manager_write(m, plan->writes[i], why);
                if (r < 0)
                        return r;
        }
        if (plan->action != KERNEL_ACTION_ARM)
                return 0;
        now = now_usec(CLOCK_MONOTONIC);
        m->kauto.arms++;
        policy_on_armed(&m->engine, now);
        manager_schedule_armed_sampling(m, now);
        return 0;
}

/* Finds changes made by someone else since we last looked. */
static void manager_check_kernel(Manager *m) {
        KernelState before;
        KernelMode found;
        PolicyConfig pc;
        char reason[REASON_MAX];
        int r;

        if (manager_backend(m) == BACKEND_NONE)
                return;
        r = executor_read(m->executor, &found);
        if (r < 0)
                return;
        if (!policy_have_decision(&m->engine) || m->kernel.mode == KERNEL_MODE_UNKNOWN || found == m->kernel.mode) {
                manager_set_mode(m, found);
                return;
        }

        before = m->kernel;
        manager_set_mode(m, found);
        snprintf(reason, sizeof reason, "%s was changed from %s to %s by someone else (on_external_change=%s)",
                 backend_sysctl_path(manager_backend(m)), kernel_mode_to_string(before.mode),
                 kernel_mode_to_string(found), external_change_to_string(m->config.on_external_change));
        /* A mainline 1→0 zeroed the counters behind our back: the next
         * reading finds them lower and the tracks keep what was counted. */
        manager_record_transition(m, &before, &m->kernel, TRANSITION_EXTERNAL, CAUSE_EXTERNAL, NULL, reason, NULL);
        manager_policy_config(m, &pc);
        policy_on_external_change(&m->engine, &pc, now_usec(CLOCK_MONOTONIC), found, before.mode);
}

/* Checks the kernel and decides: the plan that gets it there, as data, in
 * step->plan. Writes nothing (manager_execute() does); the record
 * (history, journal, status, timers) is manager_commit()'s. */
void manager_decide(Manager *m, usec_t now, Step *step) {
        bool decided_before = policy_have_decision(&m->engine), mode_changed;
        PolicyConfig pc;
        Decision d;

        *step = (Step) { .now = now };
        manager_check_kernel(m);
        manager_policy_config(m, &pc);
        policy_evaluate(&m->engine, &pc, step->now, &d);
        mode_changed = !decided_before || d.mode != m->decision.mode;
        m->decision = d;
        step->from = m->kernel;

        step->plan = kernel_state_plan(&m->kernel, d.mode, d.rearm, readers_pending(m->watch.source) > 0);
        if (step->plan.kind == KERNEL_PLAN_NONE) {
                if (d.mode != KERNEL_MODE_UNKNOWN)
                        executor_clear_error(m->executor);
                return;
        }
        if (m->dry_run) {
                /* Once per would-be switch: the kernel never moves, so each
                 * later decision for the same mode (its reason reworded
                 * from "switch" to "stay") would look like another. */
                step->record = mode_changed;
                step->kind = TRANSITION_DRY_RUN;
                step->to = (KernelState) {
                        .mode = d.mode,
                        .auto_state = step->plan.action == KERNEL_ACTION_ARM ? AUTO_STATE_ARMED : AUTO_STATE_NONE,
                };
                step->plan = (KernelPlan) {};   /* nothing to carry out */
                return;
        }
        if (step->plan.kind == KERNEL_PLAN_WAIT_READS) {
                /* Off (or arming) waits for the queued read events: right
                 * after them (the loop comes back at once). The switch's
                 * reason is this decision's, kept for the record. */
                log_debug("Read events queued: counting off after they are handled.");
                manager_deadline_now(m);
                if (!m->kauto.have_deferred)
                        m->kauto.deferred = d;
                m->kauto.have_deferred = true;
        }
}

/* Carries out what manager_decide() planned: the writes a reader waits
 * for. A switch that waited for queued reads is recorded with the reason
 * it was decided for. */
int manager_execute(Manager *m, Step *step) {
        const Decision *d = &m->decision;
        int r;

        if (step->plan.kind != KERNEL_PLAN_WRITES)
                return 0;
        r = manager_carry_out(m, &step->plan, d->reason);
        if (m->kauto.have_deferred && d->mode == m->kauto.deferred.mode) {
                m->decision.cause = m->kauto.deferred.cause;
                memcpy(m->decision.reason, m->kauto.deferred.reason, sizeof m->decision.reason);
        }
        m->kauto.have_deferred = false;
        if (r < 0)
                return r;
        executor_clear_error(m->executor);
        if (step->plan.action == KERNEL_ACTION_ARM && step->from.mode == KERNEL_MODE_AUTO)
                m->kauto.rearms++;
        step->to = m->kernel;
        /* Re-arming after our own sample is routine: counted in status, not
         * a transition in the history. */
        step->record = !(d->rearm && d->trigger_cause == CAUSE_ARMED_SAMPLE);
        step->kind = TRANSITION_POLICY;
        return 0;
}

/* The decision's reason with its readers redacted. */
static ReaderRef redact_ref(const ReaderRef *r, const void *userdata) {
        return reader_ref_redact(r);
}

static void decision_reason_redacted(const Manager *m, char *buf, size_t size) {
        Decision d = m->decision;
        PolicyConfig pc;

        decision_map_readers(&d, redact_ref, NULL);
        manager_policy_config(m, &pc);
        decision_format_reason(&d, &pc, buf, size);
}

/* Whether the kernel counts may have changed: the time shares and the
 * benefit ledger start a new stretch. The ledger books the pages allocated
 * up to now to the old state, so it takes a reading now; not while a
 * patched kernel's auto is armed, where our own read would trigger it. */
void manager_counting_changed(Manager *m, usec_t now) {
        bool counting = manager_counting(m);
        VmStat vs;

        on_time_set(&m->counts.on_time, now, counting);
        if (counting == m->counts.ledger.counting)
                return;
        if (manager_backend(m) != BACKEND_NONE && manager_may_read_stats(m) && stats_read_vmstat(m->root, &vs) >= 0 &&
            vs.has_pgalloc)
                ledger_set_counting(&m->counts.ledger, vs.pgalloc, counting);
        else
                m->counts.ledger.counting = counting;  /* booked at the next sample */
}

void manager_commit(Manager *m, const Step *step) {
        if (step->record) {
                char redacted[REASON_MAX];

                decision_reason_redacted(m, redacted, sizeof redacted);
                manager_record_transition(m, &step->from, &step->to, step->kind, m->decision.cause,
                                          &m->decision.reader, m->decision.reason, redacted);
        }
        if (step->record && step->kind == TRANSITION_POLICY && m->hotplug.zones_stale)
                manager_refresh_zones(m);
        manager_counting_changed(m, step->now);
        manager_schedule_deadline(m);
        manager_state_changed(m);
}

int manager_apply(Manager *m) {
        Step step;
        int r;

        manager_decide(m, now_usec(CLOCK_MONOTONIC), &step);
        r = manager_execute(m, &step);
        manager_commit(m, &step);
        return r;
}

int manager_set_policy(Manager *m, Policy policy, int dry_run) {
        int r;

        log_info("Policy set to %s%s by a client (was %s%s).", policy_to_string(policy),
                 dry_run > 0 ? ", dry run" : dry_run == 0 ? ", no dry run" : "",
                 policy_to_string(m->policy_in_force), m->dry_run ? ", dry run" : "");
        m->policy_in_force = policy;
        m->policy_source = CAUSE_OPERATOR;
        if (dry_run >= 0)
                m->dry_run = dry_run;
        policy_resume(&m->engine);
        r = manager_apply(m);
        return r < 0 ? r : m->dry_run;
}

int manager_restore(Manager *m) {
        KernelMode to = manager_exit_mode(m);
        KernelMode now = KERNEL_MODE_UNKNOWN;
        KernelState before;
        char reason[128];
        int r;

        if (to == KERNEL_MODE_UNKNOWN)
                return 0;
        /* A dry run never wrote; leave the kernel as the admin has it. But if
         * we did write before dry run was turned on, undo our doing. */
        if (m->dry_run && !executor_wrote(m->executor))
                return 0;

        (void) executor_read(m->executor, &now);
        if (now == to) {
                log_info("Leaving NUMA statistics in %s (exit_mode=%s).", kernel_mode_to_string(to),
                         exit_mode_to_string(m->config.exit_mode));
                return 0;
        }
        manager_set_mode(m, now);
        before = m->kernel;
        /* "previous" may be auto: written over strict, it keeps counting on,
         * which is what a stopping daemon should leave. */
        r = manager_write(m, kernel_state_write(&m->kernel, to), "daemon stopping");
        if (r < 0)
                return r;
        snprintf(reason, sizeof reason, "daemon stopping (exit_mode=%s)", exit_mode_to_string(m->config.exit_mode));
        manager_record_transition(m, &before, &m->kernel, TRANSITION_EXIT, CAUSE_EXIT, NULL, reason, NULL);
        return 0;
}

/* ---- the kernel's log ---- */

int on_trigger_settled(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        /* The kernel logged a trigger and no read event claimed it. */
        KernelState armed;

        take_kernel_log(m);
        armed = m->kernel;
        if (m->kauto.trigger_pending && read_triggered(m)) {
                manager_triggered(m, &armed, CAUSE_UNSEEN_READ, NULL, true);
                (void) manager_apply(m);
        }
        return 0;
}

void on_kmsg(KmsgMonitor *k, KmsgNuma what, void *userdata) {
        Manager *m = userdata;

        if (what != KMSG_NUMA_AUTO_TRIGGERED)
                return;         /* our own writes, or the admin's: the sysctl says those */
        if (m->kauto.sampling) {
                m->kauto.sample_triggered = true;
                return;
        }
        if (m->kernel.mode != KERNEL_MODE_AUTO || m->kernel.auto_state == AUTO_STATE_TRIGGERED)
                return;
        /* Most likely a watched read whose event is on its way: give it a
         * moment to claim the trigger, then call it unseen. */
        m->kauto.trigger_pending = true;
        timer_at(m->kauto.trigger_timer, now_usec(CLOCK_MONOTONIC) + TRIGGER_SETTLE_USEC);
}
