/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Loading the known-readers catalogue from its directories, the way
 * systemd's drop-ins work: NAME.conf in a directory of higher precedence
 * replaces the one of the same name below it, and an empty file (or a
 * link to /dev/null) masks it. */

#include "known.h"

/* The directories, highest precedence first: $NUMASTATD_KNOWN_READERS_PATH
 * (colon-separated; for tests and uninstalled runs), else
 * /etc/numastatd/readers.d then /usr/lib/numastatd/readers.d. */
int catalogue_dirs(char ***ret);

/* Loads every entry in effect, sorted by name, and resolves each exe path
 * on the daemon's own root (device and inode). A missing directory is
 * fine; an entry that does not parse fails the whole load with
 * *ret_error = "FILE:LINE: why". */
int catalogue_load(char * const *dirs, Catalogue *ret, char **ret_error);
