/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The kernel interfaces that switch NUMA statistics, detected in order of
 * preference, and their write-then-read-back discipline. */

#include <stdbool.h>

#include "mode.h"
#include "rootfs.h"

/* The sysctl path (relative to root), or NULL for BACKEND_NONE. */
const char *backend_sysctl_path(BackendKind k);

int backend_detect(const char *root, BackendKind *ret);

/* Parses what the sysctl file reads back. Pure. */
KernelMode backend_parse_mode(BackendKind k, const char *text);

/* Reads the current mode. On failure returns negative errno and, if
 * ret_error, a sentence saying what failed (malloc'd). */
int backend_read(const char *root, BackendKind k, KernelMode *ret, char **ret_error);
/* The same through kept, the sysctl's file kept open between readings
 * (rootfs.h), set up with k's path. */
int backend_read_kept(const char *root, RootFile *kept, BackendKind k, KernelMode *ret, char **ret_error);

/* Writes mode and reads it back. A read-back mismatch (the v3 handler
 * returns success for strings it rejects) is -EIO. */
int backend_write(const char *root, BackendKind k, KernelMode mode, char **ret_error);
