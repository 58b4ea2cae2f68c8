/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "rootfs.h"

int root_path(const char *root, const char *path, char **ret) {
        char *p;

        if (!path || path[0] != '/')
                return -EINVAL;
        if (!root || strcmp(root, "/") == 0)
                p = strdup(path);
        else if (asprintf(&p, "%s%s", root, path) < 0)
                p = NULL;
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

int fd_read_all(int fd, size_t max, char **ret, size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, alloc = 0;

        for (;;) {
                ssize_t n;

                if (alloc - len < 4096) {
                        size_t want = alloc ? alloc * 2 : 8192;
                        char *b;
                        if (want > max + 1)
                                want = max + 1;
                        if (want <= len)
                                return -EFBIG;
                        b = realloc(buf, want);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                        alloc = want;
                }
                n = read(fd, buf + len, alloc - len - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += n;
                if (len >= max)
                        return -EFBIG;
        }
        buf[len] = 0;
        *ret = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

int root_read_file_len(const char *root, const char *path, size_t max, char **ret, size_t *ret_len) {
        _cleanup_free_ char *full = NULL;
        _cleanup_close_ int fd = -1;
        int r;

        r = root_path(root, path, &full);
        if (r < 0)
                return r;
        fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        return fd_read_all(fd, max, ret, ret_len);
}

int root_read_file(const char *root, const char *path, size_t max, char **ret) {
        return root_read_file_len(root, path, max, ret, NULL);
}

int root_write_string(const char *root, const char *path, const char *value) {
        _cleanup_free_ char *full = NULL;
        _cleanup_close_ int fd = -1;
        size_t len = strlen(value);
        ssize_t n;
        int r;

        r = root_path(root, path, &full);
        if (r < 0)
                return r;
        /* O_TRUNC: harmless on procfs, and keeps a regular file in a test tree
         * from keeping the tail of a longer old value. */
        fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        /* A fresh open is at offset 0; write(), not pwrite(), so a FIFO
         * standing in for the kernel in tests behaves like the sysctl. */
        n = write(fd, value, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

int root_exists(const char *root, const char *path) {
        _cleanup_free_ char *full = NULL;
        int r = root_path(root, path, &full);
        if (r < 0)
                return r;
        return access(full, F_OK) < 0 ? -errno : 0;
}

int root_normalize(const char *arg, char **ret) {
        char buf[PATH_MAX];
        char *p;

        if (!arg || !*arg)
                return -EINVAL;
        /* Resolve now: later paths are built by concatenation. */
        if (!realpath(arg, buf))
                return -errno;
        p = strdup(buf);
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}
