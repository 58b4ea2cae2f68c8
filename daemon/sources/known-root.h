/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Files in a reader's root, for the look in the inspector's child (which
 * is the reader): opened as the reader would, on the root's own file
 * system only, never on the kernel's own. Paths must be absolute. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "inspector.h"
#include "known.h"

#define CONFIG_MAX (1024 * 1024)        /* the largest configuration (or environment) read */

/* The process the look is into: open_in_root() on its root consults its
 * mount table. Set once, before any other call. */
void known_root_look_at(const InspectedProcess *p);

/* path found inside rootfd (O_PATH), no mount crossed but those of the
 * root's own file system; a negative errno (-EXDEV: another mount). */
int open_in_root(int rootfd, const char *path);

/* Whether magic is one of the kernel's own file systems, or fd is on one
 * (or cannot be told). */
bool pseudo_fs(long magic);
bool on_pseudo_fs(int fd);

/* path, checked to be of type (S_IFREG, S_IFDIR) and not over CONFIG_MAX,
 * reopened (flags) through the inode found, nothing else opened. */
int open_checked_in_root(int rootfd, const char *path, mode_t type, int flags);

/* A regular file's content, NUL-terminated. */
int read_in_root(int rootfd, const char *path, char **ret);

/* The configuration files of f's directory at path, walked as f says the
 * program walks it, one after another into *ret; *ret_files: how many. A
 * missing directory the command line named is -ENOENT; the entry's own
 * holds none. */
int read_dir_in_root(int rootfd, const KnownFile *f, const char *path, char **ret, size_t *ret_files);

/* f's absent= paths: the first found (*ret_found) or one whose directory
 * cannot be read (*ret_unread). */
void absent_in_root(int rootfd, const KnownFile *f, const char **ret_found, const char **ret_unread);

/* f's installed=: > 0 if an entry of its directories is not listed, 0 if
 * all are, a negative errno if that cannot be told. */
int installed_in_root(int rootfd, const KnownFile *f);
