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
        containers = calloc(m->containers.instances.n ?: 1, sizeof *containers);
        if (!containers)
                return log_oom();
        for (size_t i = 0; i < m->containers.instances.n; i++)
                containers[i] = m->containers.instances.items[i].pid;
        r = readers_watch(m->watch.source, m->root, m->config.watch, views, containers, m->containers.instances.n);
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

/* Every mount namespace the scan can see gets a mount-event mark (once),
 * so that a procfs mounted there later is found at once. */
typedef struct NsMarking {
        MountWatch *w;
        uint64_t *seen;
        size_t n;
} NsMarking;

static void mark_ns(uint64_t ns, pid_t pid, void *userdata) {
        NsMarking *k = userdata;
        uint64_t *a = reallocarray(k->seen, k->n + 1, sizeof *a);

        if (a) {
                k->seen = a;
                k->seen[k->n++] = ns;
        }
        (void) mount_watch_add(k->w, pid, ns);
}

static void manager_mark_namespaces(Manager *m) {
        NsMarking k = { .w = m->containers.mounts };

        if (!m->containers.mounts)
                return;
        if (proc_namespaces_each("/proc", mark_ns, &k) >= 0)
                mount_watch_retain(m->containers.mounts, k.seen, k.n);
        free(k.seen);
}

/* ---- containers' procfs instances ---- */

/* Looks for procfs instances other than ours; returns whether the set
 * changed (the caller re-marks). What we watch already is skipped: our own
 * /proc, pid 1's, the root's. */
static bool manager_find_containers(Manager *m) {
        _cleanup_free_ char *rooted = NULL;
        ProcInstances found = {};
        uint64_t skip[3];
        size_t n_skip = 0;
        usec_t t0 = now_usec(CLOCK_MONOTONIC);
        struct stat st;
        int r;

        if (stat("/proc/vmstat", &st) >= 0)
                skip[n_skip++] = (uint64_t) st.st_dev;
        if (stat("/proc/1/root/proc/vmstat", &st) >= 0)
                skip[n_skip++] = (uint64_t) st.st_dev;
        if (root_path(m->root, "/proc/vmstat", &rooted) >= 0 && stat(rooted, &st) >= 0)
                skip[n_skip++] = (uint64_t) st.st_dev;
        r = proc_instances_scan("/proc", skip, n_skip, &m->containers.instances, &found);
        /* New ones were found by the mount event; older ones keep how they
         * were found (proc_instances_scan() carried it over). */
        if (r >= 0 && m->containers.for_mount)
                for (size_t i = 0; i < found.n; i++)
                        if (!proc_instances_have(&m->containers.instances, found.items[i].dev))
                                found.items[i].by_mount_event = true;
        m->containers.for_mount = false;
        manager_mark_namespaces(m);
        m->containers.scans++;
        m->containers.cost = now_usec(CLOCK_MONOTONIC) - t0;
        m->containers.scanned_at = now_usec(CLOCK_REALTIME);
        if (r < 0) {
                log_debug_errno(r, "Cannot scan /proc for other procfs instances: %m");
                return false;
        }
        if (proc_instances_same(&found, &m->containers.instances)) {
                /* The same superblocks; the processes that show them may differ. */
                proc_instances_done(&m->containers.instances);
                m->containers.instances = found;
                return false;
        }
        for (size_t i = 0; i < found.n; i++) {
                _cleanup_free_ char *comm = NULL;

                if (proc_instances_have(&m->containers.instances, found.items[i].dev))
                        continue;
                comm = cescape(found.items[i].comm ?: "");
                log_info("Watching a container's procfs (device %u:%u), seen by %s (pid " PID_FMT ").",
                         major(found.items[i].dev), minor(found.items[i].dev), strnull(comm), found.items[i].pid);
        }
        if (found.n < m->containers.instances.n)
                log_info("%zu container procfs instance(s) gone.", m->containers.instances.n - found.n);
        proc_instances_done(&m->containers.instances);
        m->containers.instances = found;
        return true;
}

/* A mount in a known namespace: scan soon (a burst of mounts, as a
 * container starts, is one scan). */
static void on_mounts(MountWatch *w, void *userdata) {
        Manager *m = userdata;

        if (config_container_scan(&m->config, m->root) == 0 || !m->watch.source)
                return;
        usec_t now = now_usec(CLOCK_MONOTONIC);

        /* Settle, but not forever: a user mounting and unmounting in a loop
         * must not push the scan away. It runs at most MOUNT_SCAN_DEADLINE_USEC
         * after the first event of a burst. */
        if (!m->containers.for_mount)
                m->containers.burst_since = now;
        m->containers.for_mount = true;
        event_timer_at(m->containers.timer, MIN(now + MOUNT_SETTLE_USEC, m->containers.burst_since + MOUNT_SCAN_DEADLINE_USEC));
}

/* Scans, and re-marks if containers came or went. */
void manager_scan_containers(Manager *m) {
        if (manager_find_containers(m)) {
                (void) manager_watch(m);
                manager_state_changed(m);
        }
}

int on_scan_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        manager_scan_containers(m);
        manager_schedule_scan(m);
        return 0;
}

/* The next scan, container_scan from now; none when it is 0. */
void manager_schedule_scan(Manager *m) {
        if (!m->containers.timer)
                return;
        event_timer_at(m->containers.timer, config_container_scan(&m->config, m->root) == 0 || !m->watch.source
                                              ? USEC_INFINITY
                                              : now_usec(CLOCK_MONOTONIC) + config_container_scan(&m->config, m->root));
}

/* Each source's constructor leaves its slot NULL when it fails: the
 * failure is said once, in status (set_source_error) and in the log. */
void manager_start_sources(Manager *m) {
        int r;

        manager_resolve_rules(m);

        r = readers_new(m->event, on_read, on_readers_failed, m, &m->watch.source);
        if (r < 0) {
                set_source_error(&m->watch.error, r, "fanotify unavailable: %m%s",
                                 r == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
                log_warning_errno(r, "Reader detection unavailable (fanotify: %m); "
                                     "policy auto cannot see readers and keeps counting on.");
        } else {
                r = mount_watch_new(m->event, on_mounts, m, &m->containers.mounts);
                if (r < 0) {
                        set_source_error(&m->containers.mounts_error, r, "mount events unavailable: %m%s",
                                         r == -EINVAL ? " (kernel < 6.14)" : "");
                        log_debug_errno(r, "No mount events (%m): containers are found by the scan only.");
                }
                if (config_container_scan(&m->config, m->root) > 0) {
                        (void) manager_find_containers(m);
                        manager_schedule_scan(m);
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
