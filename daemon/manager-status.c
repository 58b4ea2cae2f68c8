/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The status snapshot (status.h), built from the manager's state in this
 * one place: the service and the outputs see the value, not the manager. */
#include <unistd.h>

#include "manager.h"
#include "manager-internal.h"
#include "status.h"

void status_build(const Manager *m, uint64_t now, Status *ret) {
        EngineCounts ec = engine_counts(manager_engine(m));
        ExitsStats xs = exits_stats(manager_exits(m));
        size_t n_nodes;
        const NodeTrack *nodes = sampler_nodes(manager_sampler(m), &n_nodes);
        size_t n_zones;
        const ZoneThreshold *zones = nodes_zones(manager_nodes(m), &n_zones);
        Readers *readers = reader_watch_readers(manager_reader_watch(m));

        *ret = (Status) {
                .version = PACKAGE_VERSION,
                .pid = getpid(),
                .started = manager_started(m),
                .root = manager_root(m),
                .config_file = manager_config_path(m),
                .config_error = manager_config_error(m),

                .backend = manager_backend(m),
                .kernel = engine_kernel(manager_engine(m)),
                .target_mode = engine_decision(manager_engine(m))->mode,
                .counting = engine_counting(manager_engine(m)),
                .arms = ec.arms,
                .rearms = ec.rearms,
                .armed_samples = ec.armed_samples,
                .triggers = ec.triggers,

                .policy = engine_policy(manager_engine(m)),
                .policy_source = engine_policy_source(manager_engine(m)),
                .dry_run = engine_dry_run(manager_engine(m)),
                .paused = engine_paused(manager_engine(m)),
                .decision = engine_decision(manager_engine(m)),

                .have_rate = sampler_rate(manager_sampler(m))->have_rate,
                .rate = sampler_rate(manager_sampler(m))->rate,
                .last_error = executor_last_error(manager_executor(m)),

                .topology = nodes_topology(manager_nodes(m)),
                .zones = zones,
                .n_zones = n_zones,
                .zones_stale = nodes_zones_stale(manager_nodes(m)),

                .readers = engine_readers(manager_engine(m)),
                .now = now,
                .linger_max = manager_config(m)->linger_max,
                .known_readers = manager_config(m)->known ? &manager_config(m)->known_readers : NULL,
                .holds = service_holds(manager_service(m)),
                .sources = {
                        .readers = readers != NULL,
                        .readers_pidfd = readers && readers_have_pidfd(readers),
                        .reads_coalesced = readers_coalesced(readers),
                        .readers_error = reader_watch_error(manager_reader_watch(m)),
                        .readers_retry_at = reader_watch_retry_at(manager_reader_watch(m)),
                        .watched = readers_watched(readers),
                        .exit_records = exits_enabled(manager_exits(m)),
                        .exit_records_error = exits_error(manager_exits(m)),
                        .exit_records_version = xs.version,
                        .exits_named = xs.named,
                        .exits_missed = xs.missed,
                        .container_scan = config_container_scan(manager_config(m), manager_root(m)),
                        .instances = container_watch_instances(manager_containers(m)),
                        .scans = container_watch_scans(manager_containers(m)),
                        .scan_cost = container_watch_cost(manager_containers(m)),
                        .scanned_at = container_watch_scanned_at(manager_containers(m)),
                        .mount_events = container_watch_mount_events(manager_containers(m)),
                        .mount_events_error = container_watch_mount_events_error(manager_containers(m)),
                        .mount_namespaces = container_watch_mount_namespaces(manager_containers(m)),
                        .metrics_textfile = manager_config(m)->metrics_textfile,
                        .metrics_error = metrics_file_error(manager_metrics_file(m)),
                        .metrics_written_at = metrics_file_written_at(manager_metrics_file(m)),
                        .rate_error = sampler_rate_error(manager_sampler(m)),
                        .uevents = hotplug_listening(manager_hotplug(m)),
                        .uevents_error = hotplug_error(manager_hotplug(m)),
                        .kernel_log = manager_kmsg(m) != NULL,
                        .topology_changes = hotplug_changes(manager_hotplug(m)),
                        .topology_reloads = nodes_reloads(manager_nodes(m)),
                        .topology_changed_at = hotplug_changed_at(manager_hotplug(m)),
                        .samples = sampler_samples(manager_sampler(m)),
                },
                .counters = {
                        .nodes = nodes,
                        .n_nodes = n_nodes,
                        .resets_compensated = sampler_resets(manager_sampler(m)),
                        .external_resets = sampler_external_resets(manager_sampler(m)),
                        .counting_share = on_time_share(engine_on_time(manager_engine(m)), now),
                },
                .ledger = {
                        .pages_on = engine_ledger(manager_engine(m))->pages_on,
                        .pages_off = engine_ledger(manager_engine(m))->pages_off,
                        .share_off = ledger_share_off(engine_ledger(manager_engine(m))),
                        .insns_per_page = manager_config(m)->insns_per_page,
                },
                .history = engine_history(manager_engine(m)),
        };
        counter_track_total(sampler_vmstat(manager_sampler(m)), &ret->counters.total);
        counter_track_continuous(sampler_vmstat(manager_sampler(m)), &ret->counters.continuous);
        on_time_totals(engine_on_time(manager_engine(m)), now, &ret->counters.on_usec, &ret->counters.off_usec);
        engine_policy_config(manager_engine(m), &ret->policy_config);
}
