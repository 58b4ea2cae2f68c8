/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The status snapshot (status.h), built from the manager's state in this
 * one place: the service and the outputs see the value, not the manager. */
#include <unistd.h>

#include "manager.h"
#include "manager-private.h"
#include "status.h"

void status_build(const Manager *m, uint64_t now, Status *ret) {
        EngineCounts ec = engine_counts(m->engine);
        ExitsStats xs = exits_stats(m->exits);
        size_t n_nodes;
        const NodeTrack *nodes = sampler_nodes(m->sampler, &n_nodes);
        size_t n_zones;
        const ZoneThreshold *zones = nodes_zones(m->nodes, &n_zones);
        Readers *readers = reader_watch_readers(m->watch);

        *ret = (Status) {
                .version = PACKAGE_VERSION,
                .pid = getpid(),
                .started = m->started,
                .root = m->root,
                .config_file = m->config_path,
                .config_error = m->config_error,

                .backend = manager_backend(m),
                .kernel = engine_kernel(m->engine),
                .target_mode = engine_decision(m->engine)->mode,
                .counting = engine_counting(m->engine),
                .arms = ec.arms,
                .rearms = ec.rearms,
                .armed_samples = ec.armed_samples,
                .triggers = ec.triggers,

                .policy = engine_policy(m->engine),
                .policy_source = engine_policy_source(m->engine),
                .dry_run = engine_dry_run(m->engine),
                .paused = engine_paused(m->engine),
                .decision = engine_decision(m->engine),

                .have_rate = sampler_rate(m->sampler)->have_rate,
                .rate = sampler_rate(m->sampler)->rate,
                .last_error = executor_last_error(m->executor),

                .topology = nodes_topology(m->nodes),
                .zones = zones,
                .n_zones = n_zones,
                .zones_stale = nodes_zones_stale(m->nodes),

                .readers = engine_readers(m->engine),
                .now = now,
                .linger_max = m->config.linger_max,
                .known_readers = m->config.known ? &m->config.known_readers : NULL,
                .holds = service_holds(m->service),
                .sources = {
                        .readers = readers != NULL,
                        .readers_pidfd = readers && readers_have_pidfd(readers),
                        .reads_coalesced = readers_coalesced(readers),
                        .readers_error = reader_watch_error(m->watch),
                        .readers_retry_at = reader_watch_retry_at(m->watch),
                        .watched = readers_watched(readers),
                        .exit_records = exits_enabled(m->exits),
                        .exit_records_error = exits_error(m->exits),
                        .exit_records_version = xs.version,
                        .exits_named = xs.named,
                        .exits_missed = xs.missed,
                        .container_scan = config_container_scan(&m->config, m->root),
                        .instances = container_watch_instances(m->containers),
                        .scans = container_watch_scans(m->containers),
                        .scan_cost = container_watch_cost(m->containers),
                        .scanned_at = container_watch_scanned_at(m->containers),
                        .mount_events = container_watch_mount_events(m->containers),
                        .mount_events_error = container_watch_mount_events_error(m->containers),
                        .mount_namespaces = container_watch_mount_namespaces(m->containers),
                        .metrics_textfile = m->config.metrics_textfile,
                        .metrics_error = metrics_file_error(m->metrics),
                        .metrics_written_at = metrics_file_written_at(m->metrics),
                        .rate_error = sampler_rate_error(m->sampler),
                        .uevents = hotplug_listening(m->hotplug),
                        .uevents_error = hotplug_error(m->hotplug),
                        .kernel_log = m->kauto.kmsg != NULL,
                        .topology_changes = hotplug_changes(m->hotplug),
                        .topology_reloads = nodes_reloads(m->nodes),
                        .topology_changed_at = hotplug_changed_at(m->hotplug),
                        .samples = sampler_samples(m->sampler),
                },
                .counters = {
                        .nodes = nodes,
                        .n_nodes = n_nodes,
                        .resets_compensated = sampler_resets(m->sampler),
                        .external_resets = sampler_external_resets(m->sampler),
                        .counting_share = on_time_share(engine_on_time(m->engine), now),
                },
                .ledger = {
                        .pages_on = engine_ledger(m->engine)->pages_on,
                        .pages_off = engine_ledger(m->engine)->pages_off,
                        .share_off = ledger_share_off(engine_ledger(m->engine)),
                        .insns_per_page = m->config.insns_per_page,
                },
                .history = engine_history(m->engine),
        };
        counter_track_total(sampler_vmstat(m->sampler), &ret->counters.total);
        counter_track_continuous(sampler_vmstat(m->sampler), &ret->counters.continuous);
        on_time_totals(engine_on_time(m->engine), now, &ret->counters.on_usec, &ret->counters.off_usec);
        engine_policy_config(m->engine, &ret->policy_config);
}
