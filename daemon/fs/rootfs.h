/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Every /proc and /sys access of the daemon goes through here, so that the
 * whole daemon runs unchanged on a directory tree (--root=DIR) in tests and
 * in containers that bind-mount the host's /proc and /sys. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stat;

/* "/" + "/proc/vmstat" → "/proc/vmstat"; "/t" + "/proc/vmstat" → "/t/proc/vmstat". */
int root_path(const char *root, const char *path, char **ret);

/* Reads a whole file (procfs files report size 0, so it reads to EOF), at
 * most max bytes, NUL-terminated. -EFBIG past max. */
int root_read_file(const char *root, const char *path, size_t max, char **ret);
/* The same, with the length (the contents may hold NUL bytes: cmdline). */
int root_read_file_len(const char *root, const char *path, size_t max, char **ret, size_t *ret_len);
/* Reads fd to EOF, at most max bytes, NUL-terminated; -EFBIG past max. */
int fd_read_all(int fd, size_t max, char **ret, size_t *ret_len);
/* The same from its start, with pread(): read again, it reads the same. */
int fd_pread_all(int fd, size_t max, char **ret, size_t *ret_len);

/* A file read again and again (the statistics each sample, the mode
 * each decision): kept open and reread from offset 0, where procfs, sysfs
 * and sysctl files produce their text anew, sparing an open and a close
 * each time. An fd fanotify opened for the daemon's own read of the same
 * file may replace it (root_file_adopt()): reads through such an fd are
 * reported to no fanotify group (the kernel opens it FMODE_NONOTIFY), so
 * the daemon's samples stop waking it as reads of its own. */
typedef struct RootFile {
        char path[96];          /* under root */
        int fd;                 /* -1: not open */
        uint64_t dev, ino;
        bool kernel;            /* on procfs or sysfs: its inode is the kernel's, never unlinked */
        bool to_eof;            /* a short read may end a page, not the file (procfs' seq files) */
        bool quiet;             /* fd is fanotify's: reading it is not reported */
} RootFile;

/* -ENAMETOOLONG if path does not fit. */
int root_file_init(RootFile *f, const char *path);
/* Like root_read_file(), through f's fd (opened at the first read, again
 * when it fails, and, outside procfs and sysfs, when the file was unlinked
 * or replaced). A FIFO is opened anew each time. */
int root_file_read(const char *root, RootFile *f, size_t max, char **ret);
/* Takes *fd (leaving -1) if it is f's open file, as a quieter fd to it. */
bool root_file_adopt(RootFile *f, int *fd, const struct stat *st);
void root_file_close(RootFile *f);

/* One write() of value at offset 0, as sysctl files need. Never creates the
 * file: a vanished sysctl is -ENOENT, not a new regular file. A short write
 * is -EIO. */
int root_write_string(const char *root, const char *path, const char *value);

/* 0 if path exists under root, else negative errno. */
int root_exists(const char *root, const char *path);

/* Normalizes a --root argument: absolute, no trailing slash except "/". */
int root_normalize(const char *arg, char **ret);
