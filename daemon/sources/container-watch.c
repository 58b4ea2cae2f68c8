/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "container-watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "event-util.h"
#include "log.h"
#include "mountwatch.h"
#include "rootfs.h"
#include "time-util.h"

#define MOUNT_SETTLE_USEC (100 * USEC_PER_MSEC)         /* a container's mounts come in a burst */
#define MOUNT_SCAN_DEADLINE_USEC (500 * USEC_PER_MSEC)  /* ...but a burst delays the scan no longer */

struct ContainerWatch {
        char *root;
        ProcInstances instances;
        sd_event *event;
        sd_event_source *timer;
        usec_t period;                  /* 0: no scans */
        uint64_t scans;
        usec_t cost;
        uint64_t scanned_at;
        MountWatch *mounts;             /* NULL: no mount events */
        char *mounts_error;
        bool for_mount;                 /* the next scan is a mount event's */
        usec_t burst_since;             /* CLOCK_MONOTONIC: its burst's first event */
        ContainerWatchChanged changed;
        void *userdata;
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

int container_watch_new(sd_event *event, const char *root, ContainerWatchChanged changed, void *userdata,
                        ContainerWatch **ret) {
        ContainerWatch *w = calloc(1, sizeof *w);
        int r;

        if (!w)
                return -ENOMEM;
        *w = (ContainerWatch) { .event = sd_event_ref(event), .changed = changed, .userdata = userdata };
        w->root = strdup(root);
        r = w->root ? sd_event_add_time(event, &w->timer, CLOCK_MONOTONIC, USEC_INFINITY, 0, on_timer, w) : -ENOMEM;
        if (r >= 0) {
                (void) sd_event_source_set_description(w->timer, "container-scan");
                r = sd_event_source_set_time_accuracy(w->timer, USEC_PER_SEC);  /* not urgent: coalesce */
        }
        if (r >= 0)
                r = sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
        if (r < 0) {
                container_watch_free(w);
                return r;
        }
        *ret = w;
        return 0;
}

ContainerWatch *container_watch_free(ContainerWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->timer);
        mount_watch_free(w->mounts);
        free(w->mounts_error);
        proc_instances_done(&w->instances);
        sd_event_unref(w->event);
        free(w->root);
        free(w);
        return NULL;
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

static void mark_namespaces(ContainerWatch *w) {
        NsMarking k = { .w = w->mounts };

        if (!w->mounts)
                return;
        if (proc_namespaces_each("/proc", mark_ns, &k) >= 0)
                mount_watch_retain(w->mounts, k.seen, k.n);
        free(k.seen);
}

/* Looks for procfs instances other than ours: what we watch already is
 * skipped (our own /proc, pid 1's, the root's). */
bool container_watch_scan(ContainerWatch *w) {
        _cleanup_free_ char *rooted = NULL;
        ProcInstances found = {};
        uint64_t skip[3];
        size_t n_skip = 0;
        usec_t t0 = now_usec(CLOCK_MONOTONIC);
        struct stat st;
        int r;

        if (!w)
                return false;

        if (stat("/proc/vmstat", &st) >= 0)
                skip[n_skip++] = (uint64_t) st.st_dev;
        if (stat("/proc/1/root/proc/vmstat", &st) >= 0)
                skip[n_skip++] = (uint64_t) st.st_dev;
        if (root_path(w->root, "/proc/vmstat", &rooted) >= 0 && stat(rooted, &st) >= 0)
                skip[n_skip++] = (uint64_t) st.st_dev;
        r = proc_instances_scan("/proc", skip, n_skip, &w->instances, &found);
        /* New ones were found by the mount event; older ones keep how they
         * were found (proc_instances_scan() carried it over). */
        if (r >= 0 && w->for_mount)
                for (size_t i = 0; i < found.n; i++)
                        if (!proc_instances_have(&w->instances, found.items[i].dev))
                                found.items[i].by_mount_event = true;
        w->for_mount = false;
        mark_namespaces(w);
        w->scans++;
        w->cost = now_usec(CLOCK_MONOTONIC) - t0;
        w->scanned_at = now_usec(CLOCK_REALTIME);
        if (r < 0) {
                log_debug_errno(r, "Cannot scan /proc for other procfs instances: %m");
                return false;
        }
        if (proc_instances_same(&found, &w->instances)) {
                /* The same superblocks; the processes that show them may differ. */
                proc_instances_done(&w->instances);
                w->instances = found;
                return false;
        }
        for (size_t i = 0; i < found.n; i++) {
                _cleanup_free_ char *comm = NULL;

                if (proc_instances_have(&w->instances, found.items[i].dev))
                        continue;
                comm = cescape(found.items[i].comm ?: "");
                log_info("Watching a container's procfs (device %u:%u), seen by %s (pid " PID_FMT ").",
                         major(found.items[i].dev), minor(found.items[i].dev), strnull(comm), found.items[i].pid);
        }
        if (found.n < w->instances.n)
                log_info("%zu container procfs instance(s) gone.", w->instances.n - found.n);
        proc_instances_done(&w->instances);
        w->instances = found;
        return true;
}

static void schedule(ContainerWatch *w) {
        event_timer_at(w->timer, w->period == 0 ? USEC_INFINITY : now_usec(CLOCK_MONOTONIC) + w->period);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        ContainerWatch *w = userdata;

        if (container_watch_scan(w))
                w->changed(w, w->userdata);
        schedule(w);
        return 0;
}

/* A mount in a known namespace: scan soon (a burst of mounts, as a
 * container starts, is one scan). */
static void on_mounts(MountWatch *mw, void *userdata) {
        ContainerWatch *w = userdata;
        usec_t now;

        if (w->period == 0)
                return;
        now = now_usec(CLOCK_MONOTONIC);
        /* Settle, but not forever: a user mounting and unmounting in a loop
         * must not push the scan away. It runs at most MOUNT_SCAN_DEADLINE_USEC
         * after the first event of a burst. */
        if (!w->for_mount)
                w->burst_since = now;
        w->for_mount = true;
        event_timer_at(w->timer, MIN(now + MOUNT_SETTLE_USEC, w->burst_since + MOUNT_SCAN_DEADLINE_USEC));
}

void container_watch_listen_mounts(ContainerWatch *w) {
        int r;

        if (!w || w->mounts)
                return;
        r = mount_watch_new(w->event, on_mounts, w, &w->mounts);
        if (r < 0) {
                set_source_error(&w->mounts_error, r, "mount events unavailable: %m%s",
                                 r == -EINVAL ? " (kernel < 6.14)" : "");
                log_debug_errno(r, "No mount events (%m): containers are found by the scan only.");
        }
}

void container_watch_set_period(ContainerWatch *w, usec_t period) {
        if (!w)
                return;
        w->period = period;
        schedule(w);
}

bool container_watch_forget(ContainerWatch *w) {
        bool had = w && w->instances.n > 0;

        if (!w)
                return false;

        proc_instances_done(&w->instances);
        return had;
}

/* The views answer for a watch that could not be made (NULL): none. */
const ProcInstances *container_watch_instances(const ContainerWatch *w) {
        static const ProcInstances none = {};

        return w ? &w->instances : &none;
}

uint64_t container_watch_scans(const ContainerWatch *w) {
        return w ? w->scans : 0;
}

usec_t container_watch_cost(const ContainerWatch *w) {
        return w ? w->cost : 0;
}

uint64_t container_watch_scanned_at(const ContainerWatch *w) {
        return w ? w->scanned_at : 0;
}

bool container_watch_mount_events(const ContainerWatch *w) {
        return w && w->mounts;
}

const char *container_watch_mount_events_error(const ContainerWatch *w) {
        return w ? w->mounts_error : NULL;
}

size_t container_watch_mount_namespaces(const ContainerWatch *w) {
        return w ? mount_watch_count(w->mounts) : 0;
}
