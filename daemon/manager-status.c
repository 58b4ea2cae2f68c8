/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The status snapshot (status.h), built from the manager's state in this
 * one place: the service and the outputs see the value, not the manager. */
#include <unistd.h>

#include "manager.h"
#include "manager-internal.h"
#include "resolve.h"
#include "status.h"

void status_build(const Manager *m, uint64_t now, Status *ret) {
        const Engine *e = manager_engine(m);
        const Config *c = manager_config(m);
        const Sampler *sampler = manager_sampler(m);
        const Nodes *nodes = manager_nodes(m);
        const ContainerWatch *containers = manager_containers(m);
        const Hotplug *hotplug = manager_hotplug(m);
        const Exits *exits = manager_exits(m);
        const ReaderWatch *watch = manager_reader_watch(m);
        EngineCounts ec = engine_counts(e);
        ExitsStats xs = exits_stats(exits);
        size_t n_nodes;
        const NodeTrack *tracks = sampler_nodes(sampler, &n_nodes);
        size_t n_zones;
        const ZoneThreshold *zones = nodes_zones(nodes, &n_zones);
        Readers *readers = reader_watch_readers(watch);

        *ret = (Status) {
                .version = PACKAGE_VERSION,
                .pid = manager_pid(m),
                .started = manager_started(m),
                .root = manager_root(m),
                .config_file = manager_config_path(m),
                .config_error = manager_config_error(m),

                .backend = manager_backend(m),
                .kernel = engine_kernel(e),
                .target_mode = engine_decision(e)->mode,
                .counting = engine_counting(e),
                .arms = ec.arms,
                .rearms = ec.rearms,
                .armed_samples = ec.armed_samples,
                .triggers = ec.triggers,

                .policy = engine_policy(e),
                .policy_source = engine_policy_source(e),
                .dry_run = engine_dry_run(e),
                .paused = engine_paused(e),
                .decision = engine_decision(e),

                .have_rate = sampler_rate(sampler)->have_rate,
                .rate = sampler_rate(sampler)->rate,
                .last_error = executor_last_error(manager_executor(m)),

                .topology = nodes_topology(nodes),
                .zones = zones,
                .n_zones = n_zones,
                .zones_stale = nodes_zones_stale(nodes),

                .readers = engine_readers(e),
                .now = now,
                .changes = manager_events_handled(m),
                .linger_max = c->linger_max,
                .known_readers = c->known ? &c->known_readers : NULL,
                .holds = service_holds(manager_service(m)),
                .sources = {
                        .readers = readers != NULL,
                        .readers_pidfd = readers && readers_have_pidfd(readers),
                        .reads_coalesced = readers_coalesced(readers),
                        .readers_error = reader_watch_error(watch),
                        .readers_retry_at = reader_watch_retry_at(watch),
                        .watched = readers_watched(readers),
                        .exit_records = exits_enabled(exits),
                        .exit_records_error = exits_error(exits),
                        .exit_records_version = xs.version,
                        .exits_named = xs.named,
                        .exits_missed = xs.missed,
                        .container_scan = config_container_scan(c, manager_root(m)),
                        .instances = container_watch_instances(containers),
                        .scans = container_watch_scans(containers),
                        .scan_cost = container_watch_cost(containers),
                        .scanned_at = container_watch_scanned_at(containers),
                        .mount_events = container_watch_mount_events(containers),
                        .mount_events_error = container_watch_mount_events_error(containers),
                        .mount_namespaces = container_watch_mount_namespaces(containers),
                        .reader_looks = inspector_stats(manager_inspector(m)),
                        .scan_looks = container_watch_look_stats(containers),
                        .scan_skipped = container_watch_skipped(containers),
                        .metrics_textfile = c->metrics_textfile,
                        .metrics_error = metrics_file_error(manager_metrics_file(m)),
                        .metrics_written_at = metrics_file_written_at(manager_metrics_file(m)),
                        .rate_error = sampler_rate_error(sampler),
                        .uevents = hotplug_listening(hotplug),
                        .uevents_error = hotplug_error(hotplug),
                        .kernel_log = manager_kmsg(m) != NULL,
                        .topology_changes = hotplug_changes(hotplug),
                        .topology_reloads = nodes_reloads(nodes),
                        .topology_changed_at = hotplug_changed_at(hotplug),
                        .samples = sampler_samples(sampler),
                        .kernel_tells_mounts = resolve_kernel_tells_mounts(),
                },
                .counters = {
                        .nodes = tracks,
                        .n_nodes = n_nodes,
                        .resets_compensated = sampler_resets(sampler),
                        .external_resets = sampler_external_resets(sampler),
                        .counting_share = on_time_share(engine_on_time(e), now),
                },
                .ledger = {
                        .pages_on = engine_ledger(e)->pages_on,
                        .pages_off = engine_ledger(e)->pages_off,
                        .share_off = ledger_share_off(engine_ledger(e)),
                        .insns_per_page = c->insns_per_page,
                },
                .best = manager_best(m),
                .history = engine_history(e),
        };
        counter_track_total(sampler_vmstat(sampler), &ret->counters.total);
        counter_track_continuous(sampler_vmstat(sampler), &ret->counters.continuous);
        on_time_totals(engine_on_time(e), now, &ret->counters.on_usec, &ret->counters.off_usec);
        engine_policy_config(e, &ret->policy_config);
}
