/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sources: start, retry and stop of reader detection (fanotify and its
 * rules), hotplug, containers' procfs instances, and exit records. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "log.h"
#include "manager.h"
#include "manager-private.h"
#include "rootfs.h"
#include "time-util.h"
#include "verdict.h"

void manager_resolve_rules(Manager *m) {
        rules_resolve_exes(m->config.ignore, m->config.n_ignore);
        rules_resolve_exes(m->config.count, m->config.n_count);
        known_cache_clear(&m->known_cache);     /* the catalogue was (re)loaded with the config */
}

static unsigned rule_fields(const IgnoreRule *rules, size_t n) {
        unsigned f = 0;

        for (size_t i = 0; i < n; i++) {
                const IgnoreRule *r = &rules[i];
                f |= (r->comm ? ATTRIBUTE_COMM : 0) | (r->exe ? ATTRIBUTE_EXE : 0) |
                     (r->unit ? ATTRIBUTE_UNIT : 0) | (r->has_uid ? ATTRIBUTE_UID : 0);
        }
        return f;
}

/* The fields the rules and the catalogue look at: attributed before the
 * decision. The catalogue knows readers by their binary. */
unsigned rules_fields(const Config *c) {
        return rule_fields(c->ignore, c->n_ignore) | rule_fields(c->count, c->n_count) |
               (c->known && c->known_readers.n > 0 ? ATTRIBUTE_EXE : 0);
}

/* Reader detection lost (what: why, before error's text): the policy goes
 * blind (auto keeps counting on) until a new group works and marks. */
/* The next try, after the back-off (which doubles, up to its bound).
 * Returns the delay. */
static usec_t readers_schedule_retry(Manager *m) {
        usec_t delay = m->watch.backoff;

        m->watch.backoff = MIN(m->watch.backoff * 2, READERS_RETRY_MAX_USEC);
        m->watch.retry_at = now_usec(CLOCK_REALTIME) + delay;
        event_timer_at(m->watch.timer, now_usec(CLOCK_MONOTONIC) + delay);
        return delay;
}

static void manager_readers_lost(Manager *m, int error, const char *what) {
        usec_t delay;

        m->watch.source = readers_free(m->watch.source);
        set_source_error(&m->watch.error, error, "%s: %m; retrying", what);
        delay = readers_schedule_retry(m);
        log_warning("Reader detection lost; policy auto keeps counting on; next try in %" PRIu64 " s.",
                    delay / USEC_PER_SEC);
        manager_configure_engine(m);
        (void) manager_apply(m);
}

static void on_readers_failed(Readers *r, int error, void *userdata) {
        manager_readers_lost(userdata, error, "reader detection failed");
}

int manager_watch(Manager *m) {
        const ProcInstances *instances = container_watch_instances(m->containers);
        _cleanup_strv_free_ char **views = NULL;
        _cleanup_free_ pid_t *containers = NULL;
        int r;

        if (!m->watch.source)
                return 0;
        readers_set_early_fields(m->watch.source, rules_fields(&m->config));
        /* Under systemd's ProtectKernelTunables= (or in any private mount
         * namespace) our /proc may be a procfs of our own: readers read the
         * one pid 1's namespace has. Marked too; the same inode only once. */
        if (streq(m->root, "/") && strv_extend(&views, "/proc/1/root") < 0)
                return log_oom();
        /* Containers' own procfs, as one of their processes sees it. */
        containers = calloc(instances->n ?: 1, sizeof *containers);
        if (!containers)
                return log_oom();
        for (size_t i = 0; i < instances->n; i++)
                containers[i] = instances->items[i].pid;
        r = readers_watch(m->watch.source, m->root, m->config.watch, views, containers, instances->n);
        if (r < 0) {
                /* Our own files unmarked: blind, as if fanotify had failed
                 * (auto keeps counting on); the retry marks them again. */
                log_warning_errno(r, "Cannot mark the statistics files: %m");
                manager_readers_lost(m, r, "cannot mark the statistics files");
                return r;
        }
        log_debug("Watching %d statistics file(s) for readers.", r);
        return 0;
}

int on_readers_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        int r;

        r = readers_new(m->event, on_read, on_readers_failed, m, &m->watch.source);
        if (r < 0) {
                usec_t delay = readers_schedule_retry(m);

                log_warning_errno(r, "Cannot re-create reader detection (fanotify: %m); next try in %" PRIu64 " s.",
                                  delay / USEC_PER_SEC);
                manager_state_changed(m);
                return 0;
        }
        if (manager_watch(m) < 0)
                return 0;       /* lost again: manager_readers_lost() set the next try */
        log_notice("Reader detection is back.");
        m->watch.error = mfree(m->watch.error);
        m->watch.retry_at = 0;
        m->watch.backoff = READERS_RETRY_MIN_USEC;
        manager_configure_engine(m);
        (void) manager_apply(m);
        return 0;
}

static void on_hotplug_settled(Hotplug *h, const HotplugSettled *what, void *userdata) {
        Manager *m = userdata;
        bool changed = false;

        (void) nodes_reload(m->nodes, &changed);
        if (what->nodes || changed)
                (void) manager_watch(m);        /* a node's files came or went */
        if (what->cpus)
                manager_refresh_zones(m);       /* thresholds follow the CPU count */
        manager_state_changed(m);
}

/* ---- containers' procfs instances ---- */

usec_t manager_scan_period(const Manager *m) {
        return m->watch.source ? config_container_scan(&m->config, m->root) : 0;
}

/* A scan of the watch's own found containers come or go: their files are
 * marked. */
static void on_containers_changed(ContainerWatch *w, void *userdata) {
        Manager *m = userdata;

        (void) manager_watch(m);
        manager_state_changed(m);
}

/* Scans, and re-marks if containers came or went. */
void manager_scan_containers(Manager *m) {
        if (container_watch_scan(m->containers)) {
                (void) manager_watch(m);
                manager_state_changed(m);
        }
}

/* Each source's constructor leaves its slot NULL when it fails: the
 * failure is said once, in status (set_source_error) and in the log. */
void manager_start_sources(Manager *m) {
        int r;

        manager_resolve_rules(m);
        if (container_watch_new(m->event, m->root, on_containers_changed, m, &m->containers) < 0)
                (void) log_oom();

        r = readers_new(m->event, on_read, on_readers_failed, m, &m->watch.source);
        if (r < 0) {
                set_source_error(&m->watch.error, r, "fanotify unavailable: %m%s",
                                 r == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
                log_warning_errno(r, "Reader detection unavailable (fanotify: %m); "
                                     "policy auto cannot see readers and keeps counting on.");
        } else {
                container_watch_listen_mounts(m->containers);
                if (manager_scan_period(m) > 0) {
                        (void) container_watch_scan(m->containers);
                        container_watch_set_period(m->containers, manager_scan_period(m));
                }
                (void) manager_watch(m);        /* with the containers found */
        }

        /* The kernel's log says when a patched kernel's auto triggers. */
        if (backend_is_patched(manager_backend(m))) {
                r = kmsg_monitor_new(m->event, m->root, on_kmsg, m, &m->kauto.kmsg);
                if (r < 0) {
                        log_info_errno(r, "The kernel's log is not readable (%m): an armed auto counts as "
                                          "triggered at any read event.");
                }
        }

        manager_configure_engine(m);   /* what reader detection and the kernel's log can see */
        (void) exits_enable(m->exits, m->config.exit_records);
        manager_schedule_metrics(m, true);

        if (hotplug_new(m->event, on_hotplug_settled, m, &m->hotplug) < 0)
                log_oom();
}
