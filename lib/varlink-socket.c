/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

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
