/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "safe-dir.h"
#include "socket-file.h"
#include "strutil.h"

/* Whether a process listens on the socket NAME in DIR_FD. */
static bool socket_is_live(int dir_fd, const char *name) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = -1;
        int n;

        n = snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", dir_fd, name);
        if (n < 0 || (size_t) n >= sizeof sa.sun_path)
                return false;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return false;
        return connect(fd, (struct sockaddr *) &sa, sizeof sa) == 0;
}

int socket_file_listen(SocketFile *f, VarlinkServer *server, const char *path, mode_t mode) {
        _cleanup_free_ char *why = NULL, *name = NULL, *path_copy = NULL;
        _cleanup_close_ int dir_fd = -1;
        struct stat st;
        int r;

        r = safe_dir_open_parent(path, SAFE_DIR_CREATE, &dir_fd, &name, &why);
        if (r < 0)
                return log_error_errno(r, "Refusing the socket %s: %s.", path, why ? why : strerror(-r));

        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) >= 0) {
                if (!S_ISSOCK(st.st_mode))
                        return log_error_errno(EEXIST, "Refusing the socket %s: something that is not a socket is there.",
                                               path);
                /* A live daemon on this socket: do not steal it. */
                if (socket_is_live(dir_fd, name))
                        return log_error_errno(EADDRINUSE, "Another numastatd is listening on %s.", path);
                if (unlinkat(dir_fd, name, 0) < 0 && errno != ENOENT)
                        return log_error_errno(errno, "Cannot remove the stale socket %s: %m", path);
                log_debug("Replaced the stale socket %s.", path);
        } else if (errno != ENOENT)
                return log_error_errno(errno, "Cannot inspect %s: %m", path);

        /* Anyone may read the status; changing it is checked per call. */
        r = varlink_server_listen_at(server, dir_fd, name, mode);
        if (r < 0)
                return log_error_errno(r, "Cannot listen on %s: %m", path);
        /* What we remove at exit is this inode and no other. */
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return log_error_errno(errno, "Cannot inspect %s: %m", path);
        path_copy = strdup(path);
        if (!path_copy)
                return log_oom();
        *f = (SocketFile){
                .dir_fd = TAKE_FD(dir_fd),
                .name = TAKE_PTR(name),
                .path = TAKE_PTR(path_copy),
                .dev = st.st_dev,
                .ino = st.st_ino,
        };
        log_debug("Listening on %s.", path);
        return 0;
}

void socket_file_remove(SocketFile *f) {
        struct stat st;

        if (f->dir_fd >= 0 && f->name) {
                if (fstatat(f->dir_fd, f->name, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISSOCK(st.st_mode) &&
                    st.st_dev == f->dev && st.st_ino == f->ino)
                        (void) unlinkat(f->dir_fd, f->name, 0);
                else
                        log_info("Leaving %s alone: it is no longer the socket this daemon bound.", f->path);
        }
        if (f->dir_fd >= 0)
                close(f->dir_fd);
        free(f->name);
        free(f->path);
        *f = SOCKET_FILE_NULL;
}
