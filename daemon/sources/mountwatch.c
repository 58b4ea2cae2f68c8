/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fanotify-abi.h"
#include "log.h"
#include "macro.h"
#include "mountwatch.h"
#include "readers.h"
#include "resolve.h"

/* Namespace ioctls the build's headers may lack. */
#define NSIO_TYPE 0xb7
#ifndef NS_GET_USERNS
#define NS_GET_USERNS _IO(NSIO_TYPE, 0x1)
#endif
#ifndef NS_GET_OWNER_UID
#define NS_GET_OWNER_UID _IO(NSIO_TYPE, 0x4)
#endif

/* Mount lookups per wakeup: an event whose mounter is gone is looked for
 * in each marked namespace, and anyone can make events. */
#define LOOKUPS_PER_WAKEUP 256

typedef struct MarkedNs {
        uint64_t ino;           /* as /proc/PID/ns/mnt shows it */
        uint64_t id;            /* the kernel's 64-bit id, for statmount(); 0: unknown */
        uid_t owner;            /* who owns its user namespace; -1: unknown */
} MarkedNs;

struct MountWatch {
        int fd;
        sd_event_source *io;
        MountWatchCallback callback;
        void *userdata;
        MarkedNs *ns;           /* namespaces marked */
        size_t n_ns;
        uint64_t events;
};

static void seen_add(MountSeen *seen, size_t *n, MountSeen x) {
        for (size_t i = 0; i < *n; i++)
                if (seen[i].uid == x.uid && seen[i].ns == x.ns)
                        return;
        if (*n == MOUNT_SEEN_MAX - 1)
                x = (MountSeen) { .uid = (uid_t) -1 };  /* the last place: anyone else */
        if (*n < MOUNT_SEEN_MAX)
                seen[(*n)++] = x;
}

/* Where mount mnt_id is attached: its namespace and that namespace's
 * owner, the user who made the mount. The mounter's own namespace (hint,
 * 0 if it is gone: mount(8) is by now, a container's init is not) is
 * tried first; then every marked one, within *budget. A mount found nowhere
 * is gone already: there is nothing to scan for (a user mounting and
 * unmounting in a loop is mostly that), and false is returned. Where the
 * kernel cannot tell, or the budget is spent, the mount is anyone's. */
static bool mount_resolve(MountWatch *w, uint64_t hint, uint64_t mnt_id, unsigned *budget, MountSeen *ret) {
        *ret = (MountSeen) { .uid = (uid_t) -1 };
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < w->n_ns; i++) {
                        const MarkedNs *x = &w->ns[i];
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
                                *ret = (MountSeen) { .uid = x->owner, .ns = x->ino };
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
        MountWatch *w = userdata;
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
                ssize_t n = read(w->fd, buf, sizeof buf);
                if (n <= 0)
                        break;
                for (const struct fanotify_event_metadata *m = (const void *) buf; FAN_EVENT_OK(m, n);
                     m = FAN_EVENT_NEXT(m, n)) {
                        uint64_t mnt_id = event_mnt_id(m);
                        MountSeen x = { .uid = (uid_t) -1 };

                        if (m->fd >= 0)
                                close(m->fd);
                        w->events++;
                        if (m->pid != hint_pid) {
                                hint_pid = m->pid;
                                hint = m->pid > 0 ? process_ns(m->pid, "mnt") : 0;
                        }
                        if (mnt_id != 0 && !mount_resolve(w, hint, mnt_id, &budget, &x))
                                continue;
                        seen_add(seen, &n_seen, x);
                }
        }
        if (n_seen > 0 && w->callback)
                w->callback(w, seen, n_seen, w->userdata);
        return 0;
}

MountWatch *mount_watch_free(MountWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->io);
        if (w->fd >= 0)
                close(w->fd);
        free(w->ns);
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
        w->callback = cb;
        w->userdata = userdata;
        w->fd = fanotify_init(FAN_REPORT_MNT | FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK, 0);
        if (w->fd < 0)
                return -errno;
        r = sd_event_add_io(event, &w->io, w->fd, EPOLLIN, on_mount_event, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(w->io, "mount-events");
        *ret = TAKE_PTR(w);
        return 0;
}

int mount_watch_add(MountWatch *w, pid_t pid, uint64_t ns) {
        MarkedNs x = { .ino = ns, .owner = (uid_t) -1 };
        _cleanup_close_ int fd = -EBADF, userns = -EBADF;
        char path[64];
        MarkedNs *a;

        for (size_t i = 0; i < w->n_ns; i++)
                if (w->ns[i].ino == ns)
                        return 0;
        snprintf(path, sizeof path, "/proc/" PID_FMT "/ns/mnt", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fanotify_mark(w->fd, FAN_MARK_ADD | FAN_MARK_MNTNS, FAN_MNT_ATTACH, fd, NULL) < 0)
                return -errno;
        /* Who its mounts belong to, asked of the kernel's namespace objects
         * (nothing is kept: the namespace may go). */
        x.id = mntns_id(fd);
        userns = ioctl(fd, NS_GET_USERNS);
        if (userns < 0 || ioctl(userns, NS_GET_OWNER_UID, &x.owner) < 0)
                x.owner = (uid_t) -1;
        a = reallocarray(w->ns, w->n_ns + 1, sizeof *a);
        if (!a)
                return -ENOMEM;
        w->ns = a;
        w->ns[w->n_ns++] = x;
        return 1;
}

void mount_watch_retain(MountWatch *w, const uint64_t *keep, size_t n_keep) {
        size_t j = 0;

        if (!w)
                return;
        for (size_t i = 0; i < w->n_ns; i++) {
                bool kept = false;
                for (size_t k = 0; k < n_keep && !kept; k++)
                        kept = keep[k] == w->ns[i].ino;
                if (kept)
                        w->ns[j++] = w->ns[i];
        }
        w->n_ns = j;
}

size_t mount_watch_count(const MountWatch *w) {
        return w ? w->n_ns : 0;
}

uint64_t mount_watch_events(const MountWatch *w) {
        return w ? w->events : 0;
}
