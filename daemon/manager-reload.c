/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A reload (SIGHUP, or a client's): the new configuration, or the running
 * one kept with the error said; then each source and the engine told what
 * changed for them. */
#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"
#include "manager-internal.h"
#include "time-util.h"

int manager_handle_reload(Manager *m, char **ret_error) {
        Readers *readers = reader_watch_readers(manager_reader_watch(m));
        _cleanup_free_ char *error = NULL;
        const Config *config;
        bool rewatch;
        Config c;
        int r;

        (void) sd_notify(false, "RELOADING=1");
        config_init(&c);
        r = config_load(&c, manager_config_path(m), manager_config_must_exist(m), &error);
        if (r < 0) {
                config_done(&c);
                log_error("Reload rejected, keeping the running configuration: %s",
                          error ? error : "invalid configuration");
                manager_set_config_error(m, error ?: "invalid configuration");
                if (ret_error)
                        *ret_error = TAKE_PTR(error);
                (void) sd_notify(false, "READY=1");
                manager_state_changed(m);
                return r;
        }

        if (!streq_ptr(c.socket, manager_config(m)->socket) && !manager_socket_overridden(m))
                log_warning("The varlink socket path changed to %s; it takes effect at the next restart.",
                            c.socket);
        rewatch = strv_length(c.watch) != strv_length(manager_config(m)->watch);
        for (size_t i = 0; !rewatch && c.watch && c.watch[i]; i++)
                rewatch = !streq_ptr(c.watch[i], manager_config(m)->watch[i]);
        manager_replace_config(m, &c);
        config = manager_config(m);
        log_info("Configuration reloaded from %s: policy %s%s.", manager_config_path(m), policy_to_string(config->mode),
                 manager_effective_dry_run(m) ? ", dry run" : "");
        manager_configure_engine(m);
        if (readers)
                readers_set_early_fields(readers, rules_fields(config));
        manager_resolve_rules(m);
        manager_rejudge_readers(m);
        if (!metrics_file_at(manager_metrics_file(m), config->metrics_textfile))
                manager_metrics_remove(m);      /* moved or gone: the next write makes the new one */
        manager_schedule_metrics(m, true);
        if (config_container_scan(config, manager_root(m)) == 0)
                rewatch |= container_watch_forget(manager_containers(m));
        else if (readers)
                manager_scan_containers(m);     /* re-marks if the set changed */
        container_watch_set_period(manager_containers(m), manager_scan_period(m));
        if (config->exit_records != exits_enabled(manager_exits(m)))
                (void) exits_enable(manager_exits(m), config->exit_records);
        if (rewatch)
                (void) manager_watch(m);
        executor_keep_restore(manager_executor(m), manager_exit_mode(m));     /* exit_mode may have changed */
        manager_schedule_sampling(m);

        /* The engine judges the rate under the new thresholds at once, with
         * the samples' own times. A failed write is logged and in status;
         * the reload itself worked. */
        (void) manager_feed(m,
                            &(EngineEvent) { .type = ENGINE_EVENT_SET_POLICY,
                                             .policy = config->mode,
                                             .policy_source = CAUSE_RELOAD,
                                             .dry_run = manager_effective_dry_run(m) },
                            now_usec(CLOCK_MONOTONIC));
        (void) sd_notify(false, "READY=1");
        return 0;
}
