/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small files the daemon keeps in its runtime directory (the crash-restore
 * state, the carried counters) and reads back after a crash or a restart.
 * Root acts on what they say, so they are read like untrusted input: opened
 * without following links or blocking on a FIFO, and taken only if a
 * regular file of the daemon's user that no one else can write, small, and
 * free of NUL bytes. Written atomically: a fresh name, created exclusively
 * and not through a link, renamed over the old file. */

#include <stddef.h>

int state_file_save(int dir_fd, const char *name, const char *text);

/* The file's text in *ret (NUL-terminated): -ENOENT when there is none;
 * -EPERM with *ret_why saying why when it is refused. */
int state_file_load(int dir_fd, const char *name, size_t max, char **ret, char **ret_why);

/* Whether st (a directory or file the daemon obeys) is its user's and
 * writable by it alone; NULL if so, else why not. */
struct stat;
const char *state_file_unsafe(const struct stat *st);
