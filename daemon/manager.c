/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's context and its life cycle: new, start, run, reload, and the
 * one exit path. The rest of its jobs are the manager-*.c files. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"
#include "manager-private.h"
#include "rootfs.h"
#include "service.h"
#include "time-util.h"

/* Events are stamped with the clock itself, not sd_event_now(): events
 * handled in one loop turn must keep their order (a read handled after a
 * switch is after it). */

static bool effective_dry_run(const Manager *m) {
        return m->dry_run_override || m->config.dry_run;
}

static bool manager_counting(const Manager *m) {
        return engine_counting(m->engine);
}

int manager_new(const ManagerOptions *opts, Config *config, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_free_ char *runtime_dir = NULL;
        EngineConfig engine_config;
        int r;

        m = calloc(1, sizeof *m);
        if (!m)
                return log_oom();
        m->config = *config;
        *config = (Config){};

        r = root_normalize(opts->root ? opts->root : "/", &m->root);
        if (r < 0)
                return log_error_errno(r, "Invalid root directory '%s': %m", opts->root);
        m->config_path = strdup(opts->config_path ? opts->config_path : DEFAULT_CONFIG_PATH);
        m->metrics = metrics_file_new();
        if (!m->config_path || !m->metrics)
                return log_oom();
        m->config_must_exist = opts->config_path != NULL;
        if (opts->socket_path) {
                m->socket_override = strdup(opts->socket_path);
                if (!m->socket_override)
                        return log_oom();
        }
        m->dry_run_override = opts->dry_run;
        runtime_dir = manager_runtime_dir(opts->runtime_dir);
        if (!runtime_dir || executor_new(m->root, runtime_dir, &m->executor) < 0 ||
            sampler_new(m->root, &m->sampler) < 0 || nodes_new(m->root, &m->nodes) < 0)
                return log_oom();
        m->started = now_usec(CLOCK_REALTIME);
        m->initial_mode = KERNEL_MODE_UNKNOWN;
        m->realtime_offset = (int64_t) now_usec(CLOCK_REALTIME) - (int64_t) now_usec(CLOCK_MONOTONIC);
        manager_engine_config(m, &engine_config);
        if (engine_new(&engine_config, m->config.mode, effective_dry_run(m), now_usec(CLOCK_MONOTONIC),
                       &m->engine) < 0)
                return log_oom();

        r = sd_event_default(&m->event);
        if (r < 0)
                return log_error_errno(r, "Cannot allocate event loop: %m");
        r = exits_new(m->event, on_exit_named_read, m, &m->exits);
        if (r < 0)
                return log_error_errno(r, "Cannot set up exit records: %m");

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* First the exit path (once), which disconnects every client and so
         * empties the Monitor list through on_disconnect; only then free. */
        (void) manager_shutdown(m);
        m->service = service_free(m->service);
        executor_free(m->executor);
        engine_free(m->engine);
        sd_event_source_disable_unref(m->sample_timer);
        sd_event_source_disable_unref(m->deadline_timer);
        sd_event_source_disable_unref(m->kauto.trigger_timer);
        sd_event_source_disable_unref(m->kauto.armed_timer);
        sd_event_source_disable_unref(m->metrics_timer);
        sd_event_source_disable_unref(m->turn.source);
        metrics_file_free(m->metrics);
        container_watch_free(m->containers);
        sampler_free(m->sampler);
        exits_free(m->exits);
        kmsg_monitor_free(m->kauto.kmsg);
        reader_watch_free(m->watch);
        hotplug_free(m->hotplug);
        nodes_free(m->nodes);
        config_done(&m->config);
        free(m->config_error);
        free(m->root);
        free(m->config_path);
        free(m->socket_override);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

int manager_reload(Manager *m, char **ret_error) {
        _cleanup_free_ char *error = NULL;
        bool rewatch;
        Config c;
        int r;

        (void) sd_notify(false, "RELOADING=1");
        config_init(&c);
        r = config_load(&c, m->config_path, m->config_must_exist, &error);
        if (r < 0) {
                config_done(&c);
                log_error("Reload rejected, keeping the running configuration: %s",
                          error ? error : "invalid configuration");
                free(m->config_error);
                m->config_error = error ? strdup(error) : strdup("invalid configuration");
                if (ret_error)
                        *ret_error = TAKE_PTR(error);
                (void) sd_notify(false, "READY=1");
                manager_state_changed(m);
                return r;
        }

        if (!streq_ptr(c.socket, m->config.socket) && !m->socket_override)
                log_warning("The varlink socket path changed to %s; it takes effect at the next restart.",
                            c.socket);
        rewatch = strv_length(c.watch) != strv_length(m->config.watch);
        for (size_t i = 0; !rewatch && c.watch && c.watch[i]; i++)
                rewatch = !streq_ptr(c.watch[i], m->config.watch[i]);
        config_done(&m->config);
        m->config = c;
        m->config_error = mfree(m->config_error);
        log_info("Configuration reloaded from %s: policy %s%s.", m->config_path, policy_to_string(m->config.mode),
                 effective_dry_run(m) ? ", dry run" : "");
        manager_configure_engine(m);
        if (reader_watch_readers(m->watch))
                readers_set_early_fields(reader_watch_readers(m->watch), rules_fields(&m->config));
        manager_resolve_rules(m);
        manager_rejudge_readers(m);
        if (!metrics_file_at(m->metrics, m->config.metrics_textfile))
                manager_metrics_remove(m);      /* moved or gone: the next write makes the new one */
        manager_schedule_metrics(m, true);
        if (config_container_scan(&m->config, m->root) == 0)
                rewatch |= container_watch_forget(m->containers);
        else if (reader_watch_readers(m->watch))
                manager_scan_containers(m);     /* re-marks if the set changed */
        container_watch_set_period(m->containers, manager_scan_period(m));
        if (m->config.exit_records != exits_enabled(m->exits))
                (void) exits_enable(m->exits, m->config.exit_records);
        if (rewatch)
                (void) manager_watch(m);
        executor_keep_restore(m->executor, manager_exit_mode(m));     /* exit_mode may have changed */
        manager_schedule_sampling(m);

        /* The engine judges the rate under the new thresholds at once, with
         * the samples' own times. A failed write is logged and in status;
         * the reload itself worked. */
        (void) manager_feed(m,
                            &(EngineEvent) { .type = ENGINE_EVENT_SET_POLICY,
                                             .policy = m->config.mode,
                                             .policy_source = CAUSE_RELOAD,
                                             .dry_run = effective_dry_run(m) },
                            now_usec(CLOCK_MONOTONIC));
        (void) sd_notify(false, "READY=1");
        return 0;
}

/* ---- the socket ---- */

static int manager_listen(Manager *m) {
        return service_listen(m->service, m->socket_override ? m->socket_override : m->config.socket);
}

/* ---- life cycle ---- */

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        if (si->ssi_signo == SIGHUP) {
                (void) manager_reload(m, NULL);
                return 0;
        }
        log_info("Received SIG%s, stopping.", sigabbrev_np(si->ssi_signo));
        return sd_event_exit(m->event, 0);
}

char *manager_runtime_dir(const char *option) {
        const char *e = getenv("RUNTIME_DIRECTORY");

        if (option)
                return strdup(option);
        if (e && e[0] == '/')
                return strndup(e, strcspn(e, ":"));
        return strdup(DEFAULT_RUNTIME_DIR);
}

/* A state file left by a crashed daemon is obeyed before we start; one
 * of a live daemon means two would fight over the sysctl (executor.h). */
static int manager_recover(Manager *m) {
        bool restored;
        int r;

        r = executor_recover(m->executor, &restored);
        if (r < 0)
                return r;
        if (restored) {
                /* What we found at start is what the crashed daemon left, not the admin's. */
                (void) executor_read(m->executor, &m->initial_mode);
                manager_set_mode(m, m->initial_mode);
        }
        return 0;
}

/* A timer that stops the daemon if its handler fails. Accuracy 1 ms, not
 * sd-event's default of 250 ms: these times are the policy's (interval,
 * sustain, linger, the 50 ms trigger settle), and a sample every 100 ms
 * must not come every 350. */
#define TIMER_ACCURACY_USEC USEC_PER_MSEC
static int add_timer(Manager *m, sd_event_source **ret, sd_event_time_handler_t handler, const char *name) {
        int r;

        r = sd_event_add_time(m->event, ret, CLOCK_MONOTONIC, USEC_INFINITY, TIMER_ACCURACY_USEC, handler, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(*ret, name);
        r = sd_event_source_set_exit_on_failure(*ret, true);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(*ret, SD_EVENT_OFF);
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
        int r;

        r = executor_probe(m->executor, &m->initial_mode);
        if (r < 0 || manager_backend(m) == BACKEND_NONE)
                return r;
        manager_configure_engine(m);
        manager_set_mode(m, m->initial_mode);
        return 0;
}

/* main() blocked these before we started: sd-event takes them as signalfd. */
static int manager_add_signals(Manager *m) {
        static const int signals[] = { SIGTERM, SIGINT, SIGHUP };

        for (size_t i = 0; i < ELEMENTSOF(signals); i++) {
                sd_event_source *s = NULL;
                int r;

                r = sd_event_add_signal(m->event, &s, signals[i], on_signal, m);
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

/* Every timer, created off: each file schedules its own. */
static int manager_add_timers(Manager *m) {
        const struct {
                sd_event_source **slot;
                sd_event_time_handler_t handler;
                const char *name;
        } timers[] = {
                { &m->sample_timer, on_sample, "sample" },
                { &m->deadline_timer, on_deadline, "policy-deadline" },
                { &m->kauto.trigger_timer, on_trigger_settled, "trigger-settle" },
                { &m->kauto.armed_timer, on_armed_sample, "armed-sample" },
                { &m->metrics_timer, on_metrics_timer, "metrics" },
        };
        int r = 0;

        for (size_t i = 0; i < ELEMENTSOF(timers) && r >= 0; i++)
                r = add_timer(m, timers[i].slot, timers[i].handler, timers[i].name);
        if (r >= 0)
                r = manager_add_turn_end(m);
        if (r < 0)
                return log_error_errno(r, "Cannot create timers: %m");
        return 0;
}

int manager_start(Manager *m) {
        int r;

        r = manager_probe_kernel(m);
        if (r < 0)
                return r;
        r = manager_recover(m);
        if (r < 0)
                return r;
        manager_load_carried(m);

        (void) nodes_load(m->nodes);

        r = service_new(&service_ops, m, m->event, &m->service);
        if (r >= 0)
                r = manager_listen(m);
        if (r >= 0)
                r = manager_add_signals(m);
        if (r >= 0)
                r = manager_add_timers(m);
        if (r < 0)
                return r;
        r = sd_event_set_watchdog(m->event, true);
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

        r = sd_event_loop(m->event);
        if (r < 0)
                log_error_errno(r, "Event loop failed: %m");
        /* Whatever ended the loop, one way out. */
        k = manager_shutdown(m);
        return r < 0 ? r : k;
}

int manager_shutdown(Manager *m) {
        int r = 0;

        if (m->shut_down)
                return 0;
        m->shut_down = true;
        (void) sd_notify(false, "STOPPING=1");

        /* Only a daemon that took the kernel over gives it back: one that
         * failed to start (a second daemon, say) must not touch it. */
        if (policy_have_decision(engine_policy_state(m->engine))) {
                /* The counts up to now, for the next daemon of this boot. */
                manager_sample(m, false);
                manager_carry_save(m, true);
                r = manager_restore(m);
                /* Restored: nothing left for ExecStopPost= or the next start to
                 * do. On failure the state stays, so they can try again. */
                if (r >= 0)
                        executor_restored(m->executor);
        }
        manager_turn_end_pending(m);    /* what the last turn changed, before the clients go */
        service_shutdown(m->service);  /* every client, Monitor ones too */
        manager_metrics_remove(m);
        return r;
}
