/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanotify-abi.h"
#include "log.h"
#include "macro.h"
#include "mountwatch.h"
#include "readers.h"
#include "resolve.h"

/* Mount lookups per wakeup: an event whose mounter is gone is looked for
 * in each namespace of its group, and anyone can make events. */
#define LOOKUPS_PER_WAKEUP 256
#define SHARED_GROUP (MOUNT_GROUPS - 1)

typedef struct MarkedNs {
        uint64_t ino;           /* as /proc/PID/ns/mnt shows it */
        uint64_t id;            /* the kernel's 64-bit id, for statmount(); 0: unknown */
} MarkedNs;

/* One owner's namespaces (or, the last one, those of every owner beyond). */
typedef struct MountGroup {
        MountWatch *w;
        int fd;                 /* -1: not made yet */
        sd_event_source *io;
        uid_t owner;            /* (uid_t) -1: the shared group */
        MarkedNs *ns;
        size_t n_ns;
} MountGroup;

struct MountWatch {
        sd_event *event;
        MountGroup groups[MOUNT_GROUPS];
        MountWatchCallback callback;
        void *userdata;
        uint64_t events;
};

static void seen_add(MountSeen *seen, size_t *n, MountSeen x) {
        for (size_t i = 0; i < *n; i++)
                if (seen[i].owner == x.owner && seen[i].ns == x.ns)
                        return;
        if (*n == MOUNT_SEEN_MAX - 1)
                x.ns = 0;       /* the last place: any of the group's */
        if (*n < MOUNT_SEEN_MAX)
                seen[(*n)++] = x;
}

/* Where in group g mount mnt_id is attached. The mounter's own namespace
 * (hint, 0 if it is gone: mount(8) is by now, a container's init is not)
 * is tried first; then each of the group's, within *budget. A mount found
 * nowhere is gone already: there is nothing to scan for (a user mounting
 * and unmounting in a loop is mostly that), and false is returned. Where
 * the kernel cannot tell (no statmount(), or a filter refuses it), or the
 * budget is spent, the mount is in any of the group's namespaces. */
static bool mount_resolve(const MountGroup *g, uint64_t hint, uint64_t mnt_id, unsigned *budget, MountSeen *ret) {
        *ret = (MountSeen) { .owner = g->owner };
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < g->n_ns; i++) {
                        const MarkedNs *x = &g->ns[i];
                        int r;

                        /* The hint first, then the others. */
                        if ((pass == 0) != (hint != 0 && x->ino == hint))
                                continue;
                        if (*budget == 0)
                                return true;
                        (*budget)--;
                        r = mount_attached_in(mnt_id, x->id);
                        if (r < 0)
                                return true;
                        if (r > 0) {
                                ret->ns = x->ino;
                                return true;
                        }
                }
        return false;
}

/* The mount id an event carries, or 0. */
static uint64_t event_mnt_id(const struct fanotify_event_metadata *m) {
        const char *p = (const char *) m + m->metadata_len, *end = (const char *) m + m->event_len;

        while (p + sizeof(struct fanotify_event_info_header) <= end) {
                const struct fanotify_event_info_header *h = (const void *) p;
                uint64_t id;

                if (h->len < sizeof *h || p + h->len > end)
                        break;
                /* struct fanotify_event_info_mnt: the id is 8-byte aligned, after the header. */
                if (h->info_type == FAN_EVENT_INFO_TYPE_MNT && h->len >= 16) {
                        memcpy(&id, p + 8, sizeof id);
                        return id;
                }
                p += h->len;
        }
        return 0;
}

static int on_mount_event(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        MountGroup *g = userdata;
        MountWatch *w = g->w;
        MountSeen seen[MOUNT_SEEN_MAX];
        unsigned budget = LOOKUPS_PER_WAKEUP;
        pid_t hint_pid = 0;             /* a flood's events come from one mounter: its namespace once */
        uint64_t hint = 0;
        size_t n_seen = 0;
        char buf[4096];

        /* What was mounted does not matter: the scan looks at /proc. Where,
         * and by whom, does: scans a user asks for are theirs to wait for.
         * A batch per wakeup: a mount flood does not hold the loop. */
        for (unsigned i = 0; i < 8; i++) {
                ssize_t n = read(g->fd, buf, sizeof buf);
                if (n <= 0)
                        break;
                for (const struct fanotify_event_metadata *m = (const void *) buf; FAN_EVENT_OK(m, n);
                     m = FAN_EVENT_NEXT(m, n)) {
                        uint64_t mnt_id = event_mnt_id(m);
                        MountSeen x = { .owner = g->owner };

                        if (m->fd >= 0)
                                close(m->fd);
                        w->events++;
                        if (m->pid != hint_pid) {
                                hint_pid = m->pid;
                                hint = m->pid > 0 ? process_ns(m->pid, "mnt") : 0;
                        }
                        if (mnt_id != 0 && !mount_resolve(g, hint, mnt_id, &budget, &x))
                                continue;
                        seen_add(seen, &n_seen, x);
                }
        }
        if (n_seen > 0 && w->callback)
                w->callback(w, seen, n_seen, w->userdata);
        return 0;
}

static void group_close(MountGroup *g) {
        g->io = sd_event_source_disable_unref(g->io);
        if (g->fd >= 0)
                close(g->fd);
        g->fd = -1;
        g->ns = mfree(g->ns);
        g->n_ns = 0;
}

static int group_open(MountWatch *w, MountGroup *g, uid_t owner) {
        int r;

        g->w = w;
        g->owner = owner;
        g->fd = fanotify_init(FAN_REPORT_MNT | FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK, 0);
        if (g->fd < 0)
                return -errno;
        r = sd_event_add_io(w->event, &g->io, g->fd, EPOLLIN, on_mount_event, g);
        if (r < 0) {
                group_close(g);
                return r;
        }
        (void) sd_event_source_set_description(g->io, "mount-events");
        return 0;
}

MountWatch *mount_watch_free(MountWatch *w) {
        if (!w)
                return NULL;
        for (size_t i = 0; i < MOUNT_GROUPS; i++)
                group_close(&w->groups[i]);
        sd_event_unref(w->event);
        free(w);
        return NULL;
}

static void mount_watch_freep(MountWatch **w) {
        mount_watch_free(*w);
}

int mount_watch_new(sd_event *event, MountWatchCallback cb, void *userdata, MountWatch **ret) {
        _cleanup_(mount_watch_freep) MountWatch *w = calloc(1, sizeof *w);
        int r;

        if (!w)
                return -ENOMEM;
        w->event = sd_event_ref(event);
        w->callback = cb;
        w->userdata = userdata;
        for (size_t i = 0; i < MOUNT_GROUPS; i++)
                w->groups[i] = (MountGroup) { .w = w, .fd = -1 };
        /* Root's group now: whether the kernel has mount events is told here. */
        r = group_open(w, &w->groups[0], 0);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

/* The group of owner's namespaces: its own, a new one, or the shared one. */
static MountGroup *group_of(MountWatch *w, uid_t owner) {
        MountGroup *unused = NULL;

        if (owner == 0)
                return &w->groups[0];
        for (size_t i = 1; i < SHARED_GROUP; i++) {
                if (w->groups[i].fd >= 0 && w->groups[i].owner == owner)
                        return &w->groups[i];
                if (w->groups[i].fd < 0 && !unused)
                        unused = &w->groups[i];
        }
        if (owner != (uid_t) -1 && unused && group_open(w, unused, owner) >= 0)
                return unused;
        if (w->groups[SHARED_GROUP].fd < 0 && group_open(w, &w->groups[SHARED_GROUP], (uid_t) -1) < 0)
                return NULL;
        return &w->groups[SHARED_GROUP];
}

int mount_watch_add(MountWatch *w, pid_t pid, uint64_t ns, uid_t owner) {
        _cleanup_close_ int fd = -EBADF;
        MountGroup *g;
        char path[64];
        MarkedNs *a;

        for (size_t i = 0; i < MOUNT_GROUPS; i++)
                for (size_t j = 0; j < w->groups[i].n_ns; j++)
                        if (w->groups[i].ns[j].ino == ns)
                                return 0;
        g = group_of(w, owner);
        if (!g)
                return -ENOMEM;
        snprintf(path, sizeof path, "/proc/" PID_FMT "/ns/mnt", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fanotify_mark(g->fd, FAN_MARK_ADD | FAN_MARK_MNTNS, FAN_MNT_ATTACH, fd, NULL) < 0)
                return -errno;
        a = reallocarray(g->ns, g->n_ns + 1, sizeof *a);
        if (!a)
                return -ENOMEM;
        g->ns = a;
        g->ns[g->n_ns++] = (MarkedNs) { .ino = ns, .id = mntns_id(fd) };
        return 1;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

void mount_watch_retain(MountWatch *w, const uint64_t *keep, size_t n_keep) {
        _cleanup_free_ uint64_t *sorted = NULL;

        if (!w)
                return;
        /* Sorted once: thousands of namespaces cost n log n, not n * m. */
        sorted = n_keep > 0 ? malloc(n_keep * sizeof *sorted) : NULL;
        if (n_keep > 0 && !sorted)
                return;
        if (n_keep > 0) {
                memcpy(sorted, keep, n_keep * sizeof *sorted);
                qsort(sorted, n_keep, sizeof *sorted, cmp_u64);
        }
        for (size_t i = 0; i < MOUNT_GROUPS; i++) {
                MountGroup *g = &w->groups[i];
                size_t j = 0;

                for (size_t k = 0; k < g->n_ns; k++)
                        if (sorted && bsearch(&g->ns[k].ino, sorted, n_keep, sizeof *sorted, cmp_u64))
                                g->ns[j++] = g->ns[k];
                g->n_ns = j;
                /* A user's group with nothing left: closed, for another. */
                if (i > 0 && g->n_ns == 0 && g->fd >= 0)
                        group_close(g);
        }
}

size_t mount_watch_count(const MountWatch *w) {
        size_t n = 0;

        for (size_t i = 0; w && i < MOUNT_GROUPS; i++)
                n += w->groups[i].n_ns;
        return n;
}

uint64_t mount_watch_events(const MountWatch *w) {
        return w ? w->events : 0;
}

bool mount_watch_owner_grouped(const MountWatch *w, uid_t owner) {
        if (!w)
                return false;
        if (owner == 0)
                return true;
        for (size_t i = 1; i < SHARED_GROUP; i++)
                if (w->groups[i].fd >= 0 && w->groups[i].owner == owner)
                        return true;
        return false;
}
