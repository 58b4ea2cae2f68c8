/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sources: started, and what their news means to the manager (a loss of
 * reader detection, a group back, hotplug, containers come or gone). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "log.h"
#include "manager.h"
#include "manager-internal.h"
#include "rootfs.h"
#include "time-util.h"
#include "verdict.h"

void manager_resolve_rules(Manager *m) {
        const Config *c = manager_config(m);

        rules_resolve_exes(c->ignore, c->n_ignore);
        rules_resolve_exes(c->count, c->n_count);
        known_cache_clear(manager_known_cache(m));     /* the catalogue was (re)loaded with the config */
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

/* Reader detection came or went: what the engine can see changed, and so
 * may its decision (blind, auto keeps counting on). */
void manager_readers_changed(Manager *m) {
        manager_configure_engine(m);
        (void) manager_apply(m);
}

/* Reader detection lost (what: why, before error's text): the policy goes
 * blind until a new group works and marks. Its news waits for the loop. */
static void manager_readers_lost(Manager *m, int error, const char *what) {
        reader_watch_lost(manager_reader_watch(m), error, what);
        manager_push(m, &(ManagerEvent) { .type = MANAGER_EVENT_READERS_CHANGED });
}

/* A new group after a loss: marked, it sees readers again. */
void manager_handle_readers_retried(Manager *m) {
        /* A new group has none of the containers' marks, and their fds are
         * closed: a new scan looks again, and marks what it finds. */
        (void) container_watch_forget(manager_containers(m));
        if (manager_watch(m) < 0)
                return;         /* lost again: manager_readers_lost() set the next try */
        if (manager_scan_period(m) > 0)
                manager_scan_containers(m);
        reader_watch_back(manager_reader_watch(m));
        manager_readers_changed(m);
}

int manager_watch(Manager *m) {
        const ProcInstances *instances = container_watch_instances(manager_containers(m));
        Readers *readers = reader_watch_readers(manager_reader_watch(m));
        _cleanup_strv_free_ char **views = NULL;
        int r;

        if (!readers) {
                container_watch_files_marked(manager_containers(m));
                return 0;
        }
        readers_set_early_fields(readers, rules_fields(manager_config(m)));
        /* Under systemd's ProtectKernelTunables= (or in any private mount
         * namespace) our /proc may be a procfs of our own: readers read the
         * one pid 1's namespace has. Marked too; the same inode only once. */
        if (streq(manager_root(m), "/") && strv_extend(&views, "/proc/1/root") < 0)
                return log_oom();
        /* Containers' own procfs: the files the scan's looks found there
         * (and the next scans look for the patterns of now). */
        if (container_watch_set_patterns(manager_containers(m), manager_config(m)->watch) < 0)
                return log_oom();
        r = readers_watch(readers, manager_root(m), manager_config(m)->watch, views, instances);
        /* Marked, or not to be: no fd of ours keeps a container's /proc
         * mounted. Marks the group has are known by their inodes since. */
        container_watch_files_marked(manager_containers(m));
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

void manager_handle_hotplug(Manager *m, const HotplugSettled *what) {
        bool changed = false;

        (void) nodes_reload(manager_nodes(m), &changed);
        if (what->nodes || changed)
                (void) manager_watch(m);        /* a node's files came or went */
        if (what->cpus)
                manager_refresh_zones(m);       /* thresholds follow the CPU count */
        manager_state_changed(m);
}

/* ---- containers' procfs instances ---- */

usec_t manager_scan_period(const Manager *m) {
        if (!reader_watch_readers(manager_reader_watch(m)))
                return 0;
        return config_container_scan(manager_config(m), manager_root(m));
}

/* Containers came or went: their files are marked, or no longer. */
void manager_containers_changed(Manager *m) {
        (void) manager_watch(m);
        manager_state_changed(m);
}

/* Scans now; what it finds comes as its own event (on_containers_changed). */
void manager_scan_containers(Manager *m) {
        container_watch_scan(manager_containers(m));
}
