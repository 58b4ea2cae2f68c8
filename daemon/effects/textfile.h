/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A file other programs read whole (the node_exporter textfile collector's
 * *.prom), replaced atomically: a temporary file in the same directory,
 * mode 0644, renamed over it, so a reader sees the old text or the new,
 * never half. The directory is reached without following any symbolic link
 * (RESOLVE_NO_SYMLINKS, resolve.h): a directory someone else owns on the way
 * (/var/lib/prometheus is prometheus's) cannot redirect where root
 * writes. */

#include <stdint.h>

typedef struct TextfileId {
        uint64_t dev, ino;      /* what we wrote last; 0: nothing */
} TextfileId;

/* Writes text to path (absolute). On failure a negative errno and, if
 * ret_why, a sentence. */
int textfile_write(const char *path, const char *text, TextfileId *ret_id, char **ret_why);

/* Removes path if it is still the file we wrote last (id). */
int textfile_remove(const char *path, const TextfileId *id);
