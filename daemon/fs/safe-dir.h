/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Directories root may write in: opened one component at a time from "/",
 * so that no one but root (or the daemon's own user) can have chosen where
 * a path leads. Every directory on the way must be owned by root or us and
 * not writable by group or others, unless sticky (/tmp): then what we step
 * into from it must be ours too. Every symbolic link followed must be owned
 * by root or us. Otherwise the open is refused, with a sentence saying why. */

typedef enum SafeDirFlags {
        SAFE_DIR_CREATE = 1 << 0,       /* create missing directories, 0755 */
} SafeDirFlags;

/* The directory PATH (absolute) as an O_RDONLY|O_DIRECTORY fd. On refusal
 * returns a negative errno and, if ret_why, a sentence naming the part of
 * the path that is not safe. */
int safe_dir_open(const char *path, SafeDirFlags flags, int *ret_fd, char **ret_why);

/* The directory holding PATH, and PATH's last component (not ".", ".." or
 * empty): for a file or socket root creates there. */
int safe_dir_open_parent(const char *path, SafeDirFlags flags, int *ret_fd, char **ret_name, char **ret_why);
