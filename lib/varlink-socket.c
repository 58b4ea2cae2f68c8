/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "varlink-socket.h"

int varlink_socket_listen_at(int dir_fd, const char *name, mode_t mode) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = -1;
        mode_t old_umask;
        int r;

        /* bind() takes a path, not a directory fd: name the directory by its
         * fd, so the path is not walked again. */
        r = snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", dir_fd, name);
        if (r < 0 || (size_t) r >= sizeof sa.sun_path)
                return -ENAMETOOLONG;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        /* Create the socket with its final mode: no window in which it has another. */
        old_umask = umask(~mode & 0777);
        r = bind(fd, (struct sockaddr *) &sa, sizeof sa);
        umask(old_umask);
        if (r < 0)
                return -errno;
        if (listen(fd, SOMAXCONN) < 0)
                return -errno;
        return TAKE_FD(fd);
}

void varlink_listeners_init(VarlinkListeners *l, VarlinkAcceptFn accept, void *userdata) {
        *l = (VarlinkListeners) { .accept = accept, .userdata = userdata };
}

static int accept_handler(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        VarlinkListeners *l = userdata;
        int cfd, r;

        cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0) {
                if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
                        log_warning_errno(errno, "varlink: accept() failed: %m");
                return 0;
        }
        r = l->accept(l->userdata, cfd);
        if (r < 0) {
                close(cfd);
                if (r != -EMFILE)
                        log_warning_errno(r, "varlink: cannot take connection: %m");
        }
        return 0;
}

static int listener_attach(VarlinkListeners *l, size_t i) {
        int r = sd_event_add_io(l->event, &l->v[i].io, l->v[i].fd, EPOLLIN, accept_handler, l);
        if (r < 0)
                return r;
        return sd_event_source_set_priority(l->v[i].io, l->priority);
}

int varlink_listeners_attach(VarlinkListeners *l, sd_event *event, int64_t priority) {
        int r;

        if (l->event)
                return -EBUSY;
        l->event = sd_event_ref(event);
        l->priority = priority;
        for (size_t i = 0; i < l->n; i++) {
                r = listener_attach(l, i);
                if (r < 0)
                        return r;
        }
        return 0;
}

int varlink_listeners_add_fd(VarlinkListeners *l, int fd) {
        typeof(l->v) n;
        int r;

        r = fcntl(fd, F_GETFL);
        if (r < 0 || fcntl(fd, F_SETFL, r | O_NONBLOCK) < 0)
                return -errno;
        n = reallocarray(l->v, l->n + 1, sizeof *n);
        if (!n)
                return -ENOMEM;
        l->v = n;
        n[l->n].fd = fd;
        n[l->n].io = NULL;
        if (l->event) {
                r = listener_attach(l, l->n);
                if (r < 0)
                        return r;
        }
        l->n++;
        return 0;
}

int varlink_listeners_add_at(VarlinkListeners *l, int dir_fd, const char *name, mode_t mode) {
        int fd, r;

        fd = varlink_socket_listen_at(dir_fd, name, mode);
        if (fd < 0)
                return fd;
        r = varlink_listeners_add_fd(l, fd);
        if (r < 0)
                close(fd);
        return r;
}

void varlink_listeners_done(VarlinkListeners *l) {
        for (size_t i = 0; i < l->n; i++) {
                sd_event_source_disable_unref(l->v[i].io);
                close(l->v[i].fd);
        }
        l->v = mfree(l->v);
        l->n = 0;
        l->event = sd_event_unref(l->event);
}
