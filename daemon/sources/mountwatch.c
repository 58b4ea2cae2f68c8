/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fanotify-abi.h"
#include "log.h"
#include "macro.h"
#include "mountwatch.h"

struct MountWatch {
        int fd;
        sd_event_source *io;
        MountWatchCallback callback;
        void *userdata;
        uint64_t *ns;           /* namespaces marked (inodes) */
        size_t n_ns;
        uint64_t events;
};

static int on_mount_event(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        MountWatch *w = userdata;
        char buf[4096];
        bool any = false;

        /* What was mounted does not matter: the scan looks at /proc. A
         * batch per wakeup: a mount flood does not hold the loop. */
        for (unsigned i = 0; i < 8; i++) {
                ssize_t n = read(w->fd, buf, sizeof buf);
                if (n <= 0)
                        break;
                for (const struct fanotify_event_metadata *m = (const void *) buf; FAN_EVENT_OK(m, n);
                     m = FAN_EVENT_NEXT(m, n)) {
                        if (m->fd >= 0)
                                close(m->fd);
                        w->events++;
                        any = true;
                }
        }
        if (any && w->callback)
                w->callback(w, w->userdata);
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
        char path[64];
        uint64_t *a;
        int fd, r = 0;

        for (size_t i = 0; i < w->n_ns; i++)
                if (w->ns[i] == ns)
                        return 0;
        snprintf(path, sizeof path, "/proc/" PID_FMT "/ns/mnt", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fanotify_mark(w->fd, FAN_MARK_ADD | FAN_MARK_MNTNS, FAN_MNT_ATTACH, fd, NULL) < 0)
                r = -errno;
        close(fd);      /* the mark does not need it: the namespace may go */
        if (r < 0)
                return r;
        a = reallocarray(w->ns, w->n_ns + 1, sizeof *a);
        if (!a)
                return -ENOMEM;
        w->ns = a;
        w->ns[w->n_ns++] = ns;
        return 1;
}

void mount_watch_retain(MountWatch *w, const uint64_t *keep, size_t n_keep) {
        size_t j = 0;

        if (!w)
                return;
        for (size_t i = 0; i < w->n_ns; i++) {
                bool kept = false;
                for (size_t k = 0; k < n_keep && !kept; k++)
                        kept = keep[k] == w->ns[i];
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
