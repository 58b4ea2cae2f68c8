/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "safe-dir.h"
#include "strutil.h"

#define MAX_LINKS 32

static bool owned_by_us(const struct stat *st) {
        return st->st_uid == 0 || st->st_uid == geteuid();
}

/* Why the directory at WHERE does not keep others from changing what is
 * in it, or NULL. */
static const char *dir_unsafe(const struct stat *st) {
        if (!owned_by_us(st))
                return "is owned by another user";
        if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
                return "is writable by others and not sticky";
        return NULL;
}

/* Replaces *todo with PREFIX "/" REST (REST may be empty). */
static int todo_prepend(char **todo, const char *prefix, const char *rest) {
        char *s;

        if (asprintf(&s, "%s/%s", prefix, rest) < 0)
                return -ENOMEM;
        free(*todo);
        *todo = s;
        return 0;
}

int safe_dir_open(const char *path, SafeDirFlags flags, int *ret_fd, char **ret_why) {
        _cleanup_free_ char *todo = NULL, *walked = NULL;
        _cleanup_close_ int fd = -1;
        unsigned links = 0;
        struct stat st;
        const char *why;
        int r;

        if (!path || path[0] != '/')
                return set_why(ret_why, -EINVAL, "%s is not an absolute path", strnull(path));
        todo = strdup(path);
        walked = strdup("");
        if (!todo || !walked)
                return -ENOMEM;

        fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0)
                return -errno;
        if ((why = dir_unsafe(&st)))
                return set_why(ret_why, -EPERM, "/ %s", why);

        for (;;) {
                _cleanup_close_ int next = -1;
                _cleanup_free_ char *comp = NULL, *rest = NULL;
                const char *p = todo;
                size_t len;

                p += strspn(p, "/");
                if (!*p)
                        break;
                len = strcspn(p, "/");
                comp = strndup(p, len);
                rest = strdup(p + len);
                if (!comp || !rest)
                        return -ENOMEM;
                free(todo);
                todo = TAKE_PTR(rest);
                if (streq(comp, "."))
                        continue;

                next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0 && errno == ENOENT && (flags & SAFE_DIR_CREATE) && !streq(comp, "..")) {
                        if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST)
                                return set_why(ret_why, -errno, "cannot create %s/%s: %s", walked, comp,
                                               strerror(errno));
                        next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                }
                if (next < 0)
                        return set_why(ret_why, -errno, "cannot open %s/%s: %s", walked, comp, strerror(errno));
                if (fstat(next, &st) < 0)
                        return -errno;

                if (S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX];
                        ssize_t n;

                        if (!owned_by_us(&st))
                                return set_why(ret_why, -EPERM, "%s/%s is a symbolic link owned by another user",
                                               walked, comp);
                        if (++links > MAX_LINKS)
                                return set_why(ret_why, -ELOOP, "%s: too many symbolic links", path);
                        n = readlinkat(next, "", target, sizeof target - 1);
                        if (n < 0)
                                return -errno;
                        target[n] = '\0';
                        r = todo_prepend(&todo, target, todo);
                        if (r < 0)
                                return r;
                        if (target[0] == '/') {
                                /* Absolute: start again at "/" (already judged). */
                                close(fd);
                                fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
                                if (fd < 0)
                                        return -errno;
                                walked[0] = '\0';
                        }
                        continue;
                }
                if (!S_ISDIR(st.st_mode))
                        return set_why(ret_why, -ENOTDIR, "%s/%s is not a directory", walked, comp);
                if ((why = dir_unsafe(&st)))
                        return set_why(ret_why, -EPERM, "%s/%s %s", walked, comp, why);

                r = todo_prepend(&walked, walked, comp);        /* walked/comp, for messages */
                if (r < 0)
                        return r;
                close(fd);
                fd = TAKE_FD(next);
        }

        /* Judged it O_PATH; hand out one that *at() calls and fsync accept. */
        r = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (r < 0)
                return set_why(ret_why, -errno, "cannot open %s: %s", path, strerror(errno));
        *ret_fd = r;
        return 0;
}

int safe_dir_open_parent(const char *path, SafeDirFlags flags, int *ret_fd, char **ret_name, char **ret_why) {
        _cleanup_free_ char *dir = NULL, *name = NULL;
        int r;

        if (!path || path[0] != '/')
                return set_why(ret_why, -EINVAL, "%s is not an absolute path", strnull(path));
        r = path_split_file(path, &dir, &name);
        if (r == -EINVAL)
                return set_why(ret_why, -EINVAL, "%s does not end in a file name", path);
        if (r < 0)
                return r;
        r = safe_dir_open(dir, flags, ret_fd, ret_why);
        if (r < 0)
                return r;
        *ret_name = TAKE_PTR(name);
        return 0;
}
