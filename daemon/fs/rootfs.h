/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Every /proc and /sys access of the daemon goes through here, so that the
 * whole daemon runs unchanged on a directory tree (--root=DIR) in tests and
 * in containers that bind-mount the host's /proc and /sys. */

#include <stddef.h>

/* "/" + "/proc/vmstat" → "/proc/vmstat"; "/t" + "/proc/vmstat" → "/t/proc/vmstat". */
int root_path(const char *root, const char *path, char **ret);

/* Reads a whole file (procfs files report size 0, so it reads to EOF), at
 * most max bytes, NUL-terminated. -EFBIG past max. */
int root_read_file(const char *root, const char *path, size_t max, char **ret);
/* The same, with the length (the contents may hold NUL bytes: cmdline). */
int root_read_file_len(const char *root, const char *path, size_t max, char **ret, size_t *ret_len);
/* Reads fd to EOF, at most max bytes, NUL-terminated; -EFBIG past max. */
int fd_read_all(int fd, size_t max, char **ret, size_t *ret_len);

/* One write() of value at offset 0, as sysctl files need. Never creates the
 * file: a vanished sysctl is -ENOENT, not a new regular file. A short write
 * is -EIO. */
int root_write_string(const char *root, const char *path, const char *value);

/* 0 if path exists under root, else negative errno. */
int root_exists(const char *root, const char *path);

/* Normalizes a --root argument: absolute, no trailing slash except "/". */
int root_normalize(const char *arg, char **ret);
