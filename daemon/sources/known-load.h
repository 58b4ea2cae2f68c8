/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Loading the known-readers catalogue from its directories, the way
 * systemd's drop-ins work: NAME.conf in a directory of higher precedence
 * replaces the one of the same name below it, and an empty file (or a
 * link to /dev/null) masks it. */

#include "known.h"

/* The file a build writes beside the daemon it built, naming the source
 * tree's catalogue (Makefile.am). */
#define CATALOGUE_UNINSTALLED_MARKER "numastatd-uninstalled"

/* The directories, highest precedence first: path (colon-separated) when
 * set, else /etc/numastatd/readers.d then /usr/lib/numastatd/readers.d, or
 * in place of the latter the directory that exe_dir's marker file names. */
int catalogue_dirs_for(const char *path, const char *exe_dir, char ***ret);
/* The same for this daemon: $NUMASTATD_KNOWN_READERS_PATH, and the
 * directory of its own executable. */
int catalogue_dirs(char ***ret);

/* Loads every entry in effect, sorted by name, and resolves each exe path
 * on the daemon's own root (device and inode). The catalogue keeps dirs
 * and those of them it could not read. A missing directory is fine; an
 * entry that does not parse fails the whole load with
 * *ret_error = "FILE:LINE: why". */
int catalogue_load(char * const *dirs, Catalogue *ret, char **ret_error);
