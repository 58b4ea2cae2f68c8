/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "manager.h"
#include "manager-private.h"
#include "status.h"
#include "strutil.h"

void status_build(const Manager *m, uint64_t now, Status *ret) {
        *ret = (Status) {
                .version = PACKAGE_VERSION,
                .pid = getpid(),
                .started = m->started,
                .root = m->root,
                .config_file = m->config_path,
                .config_error = m->config_error,

                .backend = m->backend,
                .kernel = &m->kernel,
                .target_mode = m->decision.mode,
                .counting = manager_counting(m),
                .arms = m->kauto.arms,
                .rearms = m->kauto.rearms,
                .armed_samples = m->kauto.armed_samples,
                .triggers = m->kauto.triggers,

                .policy = m->policy_in_force,
                .policy_source = m->policy_source,
                .dry_run = m->dry_run,
                .paused = policy_paused(&m->engine),
                .decision = &m->decision,

                .have_rate = m->counts.rate.have_rate,
                .rate = m->counts.rate.rate,
                .last_error = &m->last_error,

                .topology = &m->hotplug.topology,
                .zones = m->hotplug.zones,
                .n_zones = m->hotplug.n_zones,
                .zones_stale = m->hotplug.zones_stale,

                .readers = &m->readertab,
                .now = now,
                .linger_max = m->config.linger_max,
                .known_readers = m->config.known ? &m->config.known_readers : NULL,
                .holds = service_holds(m->service),
                .sources = {
                        .readers = m->watch.source != NULL,
                        .readers_pidfd = m->watch.source && readers_have_pidfd(m->watch.source),
                        .reads_coalesced = readers_coalesced(m->watch.source),
                        .readers_error = m->watch.error,
                        .readers_retry_at = m->watch.retry_at,
                        .watched = readers_watched(m->watch.source),
                        .exit_records = m->exits.taskstats != NULL,
                        .exit_records_error = m->exits.error,
                        .exit_records_version = taskstats_stats(m->exits.taskstats).version,
                        .exits_named = m->exits.named,
                        .exits_missed = m->exits.missed,
                        .container_scan = manager_container_scan(m),
                        .instances = &m->containers.instances,
                        .scans = m->containers.scans,
                        .scan_cost = m->containers.cost,
                        .scanned_at = m->containers.scanned_at,
                        .mount_events = m->containers.mounts != NULL,
                        .mount_events_error = m->containers.mounts_error,
                        .mount_namespaces = mount_watch_count(m->containers.mounts),
                        .metrics_textfile = m->config.metrics_textfile,
                        .metrics_error = metrics_file_error(m->metrics),
                        .metrics_written_at = metrics_file_written_at(m->metrics),
                        .rate_error = m->counts.rate_error,
                        .uevents = m->hotplug.uevents != NULL,
                        .uevents_error = m->hotplug.uevents_error,
                        .kernel_log = m->kauto.kmsg != NULL,
                        .topology_changes = m->hotplug.changes,
                        .topology_reloads = m->hotplug.reloads,
                        .topology_changed_at = m->hotplug.changed_at,
                        .samples = m->counts.samples,
                },
                .counters = {
                        .nodes = m->counts.nodes,
                        .n_nodes = m->counts.n_nodes,
                        .resets_compensated = m->counts.resets,
                        .external_resets = m->counts.external_resets,
                        .counting_share = on_time_share(&m->counts.on_time, now),
                },
                .ledger = {
                        .pages_on = m->counts.ledger.pages_on,
                        .pages_off = m->counts.ledger.pages_off,
                        .share_off = ledger_share_off(&m->counts.ledger),
                        .insns_per_page = m->config.insns_per_page,
                },
                .history = &m->history,
        };
        counter_track_total(&m->counts.vmstat, &ret->counters.total);
        counter_track_continuous(&m->counts.vmstat, &ret->counters.continuous);
        on_time_totals(&m->counts.on_time, now, &ret->counters.on_usec, &ret->counters.off_usec);
        manager_policy_config(m, &ret->policy_config);
}

/* FNV-1a, 64 bit: a digest, not a defence; collisions only cost a Monitor
 * update that is not sent, and need 2^32 changes to be likely. */
typedef struct Digest {
        uint64_t h;
} Digest;

static void digest_bytes(Digest *d, const void *p, size_t n) {
        const unsigned char *b = p;
        for (size_t i = 0; i < n; i++) {
                d->h ^= b[i];
                d->h *= UINT64_C(0x100000001b3);
        }
}

static void digest_str(Digest *d, const char *s) {
        /* NULL and "" differ; the terminator separates fields. */
        if (!s) {
                digest_bytes(d, "\xff", 1);
                return;
        }
        digest_bytes(d, s, strlen(s) + 1);
}

#define digest_val(d, v) ({ __typeof__(v) _v_ = (v); digest_bytes((d), &_v_, sizeof _v_); })

uint64_t status_fingerprint(const Status *s) {
        Digest d = { UINT64_C(0xcbf29ce484222325) };

        digest_val(&d, s->backend);
        digest_val(&d, s->kernel->mode);
        digest_val(&d, s->kernel->auto_state);
        digest_val(&d, s->kernel->trigger_cause);
        digest_val(&d, s->kernel->triggered_by.pid);
        digest_val(&d, s->target_mode);
        digest_val(&d, s->counting);
        digest_val(&d, s->policy);
        digest_val(&d, s->policy_source);
        digest_val(&d, s->dry_run);
        digest_val(&d, s->paused);
        digest_val(&d, s->decision->cause);
        digest_val(&d, s->decision->rule);
        digest_str(&d, s->decision->reason);
        digest_str(&d, s->config_error);
        digest_val(&d, s->last_error->time);
        digest_str(&d, s->last_error->message);

        /* Who reads, not how often. */
        digest_val(&d, s->readers->n);
        for (size_t i = 0; i < s->readers->n; i++) {
                const ReaderEntry *e = &s->readers->entries[i];
                digest_str(&d, e->comm);
                digest_str(&d, e->exe);
                digest_str(&d, e->unit);
                digest_str(&d, e->path);
                digest_val(&d, e->has_uid);
                digest_val(&d, e->uid);
                digest_val(&d, e->ignored);
                digest_str(&d, e->rule);
                digest_val(&d, e->period != 0);        /* found periodic (not the figure itself) */
        }
        /* Holds come and go. */
        digest_val(&d, holds_count(s->holds));
        for (size_t i = 0; i < holds_count(s->holds); i++)
                digest_val(&d, holds_get(s->holds, i)->id);

        digest_val(&d, s->sources.readers);
        digest_str(&d, s->sources.readers_error);
        for (char *const *w = s->sources.watched; w && *w; w++)
                digest_str(&d, *w);
        digest_str(&d, s->sources.rate_error);
        digest_val(&d, s->sources.exit_records);
        digest_str(&d, s->sources.exit_records_error);
        digest_str(&d, s->sources.metrics_error);
        if (s->sources.instances) {     /* containers came or went */
                digest_val(&d, s->sources.instances->n);
                for (size_t i = 0; i < s->sources.instances->n; i++)
                        digest_val(&d, s->sources.instances->items[i].dev);
        }
        digest_val(&d, s->sources.uevents);
        digest_val(&d, s->sources.kernel_log);
        digest_str(&d, s->sources.uevents_error);
        digest_val(&d, s->sources.topology_reloads);
        digest_val(&d, s->topology->n_nodes);
        digest_val(&d, s->history->total);
        return d.h;
}


bool status_keeps_counting_on(const Status *s, const ReaderEntry *e) {
        return s->policy == POLICY_AUTO && s->counting &&
               readertab_holds_until(e, s->policy_config.linger, s->linger_max) > s->now;
}
