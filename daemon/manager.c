/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's life cycle: new, start, run, reload, and the one exit path.
 * Its state is the context's (manager-context.c); the rest of its jobs are
 * the manager-*.c files. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"
#include "manager-internal.h"
#include "missing.h"
#include "rootfs.h"
#include "service.h"
#include "time-util.h"

/* Events are stamped with the clock itself, not sd_event_now(): events
 * handled in one loop turn must keep their order (a read handled after a
 * switch is after it). */

static bool manager_counting(const Manager *m) {
        return engine_counting(manager_engine(m));
}

int manager_new(const ManagerOptions *opts, Config *config, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        EngineConfig engine_config;
        Engine *e;
        int r;

        r = manager_context_new(opts, config, &m);
        if (r < 0)
                return r;
        manager_engine_config(m, &engine_config);
        if (engine_new(&engine_config, manager_config(m)->mode, manager_effective_dry_run(m),
                       now_usec(CLOCK_MONOTONIC), &e) < 0)
                return log_oom();
        manager_adopt_engine(m, e);
        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        TurnEnd *t;

        if (!m)
                return NULL;
        /* First the exit path (once), which disconnects every client and so
         * empties the Monitor list through on_disconnect; only then free. */
        (void) manager_shutdown(m);
        t = manager_turn(m);
        manager_set_turn(m, NULL);
        turn_end_free(t);
        manager_context_free(m);
        return NULL;
}

/* ---- the socket ---- */

static int manager_listen(Manager *m) {
        return service_listen(manager_service(m), manager_socket_path(m));
}

/* ---- life cycle ---- */

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        if (si->ssi_signo == SIGHUP) {
                (void) manager_reload(m, NULL);
                return 0;
        }
        log_info("Received SIG%s, stopping.", sigabbrev_np(si->ssi_signo));
        return sd_event_exit(manager_event(m), 0);
}

/* A state file left by a crashed daemon is obeyed before we start; one
 * of a live daemon means two would fight over the sysctl (executor.h). */
static int manager_recover(Manager *m) {
        KernelMode mode = KERNEL_MODE_UNKNOWN;
        bool restored;
        int r;

        r = executor_recover(manager_executor(m), &restored);
        if (r < 0)
                return r;
        if (restored) {
                /* What we found at start is what the crashed daemon left, not the admin's. */
                (void) executor_read(manager_executor(m), &mode);
                manager_set_initial_mode(m, mode);
                manager_set_mode(m, mode);
        }
        return 0;
}

/* What the varlink methods ask of the manager. */
static const ServiceOps service_ops = {
        .status = status_build,
        .sample_for_caller = manager_sample_for_caller,
        .hold_refused = manager_hold_refused,
        .holds_changed = manager_holds_changed,
        .counting = manager_counting,
        .set_policy = manager_set_policy,
        .last_error = manager_last_error,
        .reload = manager_reload,
};

/* Which interface the kernel has, and its mode now. */
static int manager_probe_kernel(Manager *m) {
        KernelMode mode = KERNEL_MODE_UNKNOWN;
        int r;

        r = executor_probe(manager_executor(m), &mode);
        manager_set_initial_mode(m, mode);
        if (r < 0 || manager_backend(m) == BACKEND_NONE)
                return r;
        manager_configure_engine(m);
        manager_set_mode(m, mode);
        return 0;
}

/* main() blocked these before we started: sd-event takes them as signalfd. */
static int manager_add_signals(Manager *m) {
        static const int signals[] = { SIGTERM, SIGINT, SIGHUP };

        for (size_t i = 0; i < ELEMENTSOF(signals); i++) {
                sd_event_source *s = NULL;
                int r;

                r = sd_event_add_signal(manager_event(m), &s, signals[i], on_signal, m);
                if (r >= 0)
                        r = sd_event_source_set_exit_on_failure(s, true);
                if (r < 0)
                        return log_error_errno(r, "Cannot watch SIG%s: %m", sigabbrev_np(signals[i]));
                /* Floating: owned by the loop, freed with it. */
                (void) sd_event_source_set_floating(s, true);
                sd_event_source_unref(s);
        }
        return 0;
}

/* The sources made (manager_new_sources()), then started: reader
 * detection marks the files; containers' files are marked once the scan's
 * looks answer (start-up waits for none of them). */
static void manager_start_sources(Manager *m) {
        ReaderWatch *watch;

        manager_resolve_rules(m);
        manager_new_sources(m);
        watch = manager_reader_watch(m);
        if (watch && reader_watch_start(watch) >= 0) {
                container_watch_listen_mounts(manager_containers(m));
                if (manager_scan_period(m) > 0) {
                        container_watch_scan(manager_containers(m));     /* READY=1 waits for none of it */
                        container_watch_set_period(manager_containers(m), manager_scan_period(m));
                }
                (void) manager_watch(m);        /* with the containers found */
        }
        manager_configure_engine(m);   /* what reader detection and the kernel's log can see */
        (void) exits_enable(manager_exits(m), manager_config(m)->exit_records);
        manager_schedule_metrics(m, true);
        event_timer_at(manager_timer(m, MANAGER_TIMER_BEST), now_usec(CLOCK_MONOTONIC));
}

int manager_start(Manager *m) {
        Service *service;
        TurnEnd *turn;
        int r;

        r = manager_probe_kernel(m);
        if (r < 0)
                return r;
        r = manager_recover(m);
        if (r < 0)
                return r;
        manager_load_carried(m);

        (void) nodes_load(manager_nodes(m));

        r = service_new(&service_ops, m, manager_event(m), &service);
        if (r >= 0) {
                manager_adopt_service(m, service);
                r = manager_listen(m);
        }
        if (r >= 0)
                r = manager_add_signals(m);
        if (r >= 0)
                r = manager_add_timers(m);
        if (r < 0)
                return r;
        r = turn_end_new(m, &turn);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the end of a loop turn: %m");
        manager_set_turn(m, turn);
        r = sd_event_set_watchdog(manager_event(m), true);
        if (r < 0)
                log_warning_errno(r, "Cannot enable the watchdog: %m");

        (void) manager_feed(m, &(EngineEvent) { .type = ENGINE_EVENT_START }, now_usec(CLOCK_MONOTONIC));
        manager_start_sources(m);
        return 0;
}

int manager_run(Manager *m) {
        int r, k;

        /* A failed first write is in status; the daemon serves anyway. */
        (void) manager_apply(m);
        /* Counting starts after the first decision: on a patched kernel in
         * "auto" an earlier read would have turned counting on. */
        manager_sample(m, false);
        manager_refresh_zones(m);
        manager_schedule_sampling(m);
        (void) sd_notify(false, "READY=1");

        r = sd_event_loop(manager_event(m));
        if (r < 0)
                log_error_errno(r, "Event loop failed: %m");
        /* Whatever ended the loop, one way out. */
        k = manager_shutdown(m);
        return r < 0 ? r : k;
}

int manager_shutdown(Manager *m) {
        int r = 0;

        if (!manager_begin_shutdown(m))
                return 0;
        (void) sd_notify(false, "STOPPING=1");

        /* Only a daemon that took the kernel over gives it back: one that
         * failed to start (a second daemon, say) must not touch it. */
        if (policy_have_decision(engine_policy_state(manager_engine(m)))) {
                /* The counts up to now, for the next daemon of this boot. */
                manager_sample(m, false);
                manager_carry_save(m, true);
                r = manager_restore(m);
                /* Restored: nothing left for ExecStopPost= or the next start to
                 * do. On failure the state stays, so they can try again. */
                if (r >= 0)
                        executor_restored(manager_executor(m));
        }
        manager_turn_end_pending(m);    /* what the last turn changed, before the clients go */
        service_shutdown(manager_service(m));     /* every client, Monitor ones too */
        manager_metrics_remove(m);
        return r;
}
