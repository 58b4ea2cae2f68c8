/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The kernel interfaces that switch NUMA statistics, detected in order of
 * preference, and their write-then-read-back discipline. */

#include <stdbool.h>

#include "mode.h"

typedef enum BackendKind {
        BACKEND_NONE,
        BACKEND_NUMA_STATS_MODE,        /* patched kernels, seed 003 v3 */
        BACKEND_VMSTAT_MODE,            /* patched kernels, v1/v2 spelling */
        BACKEND_NUMA_STAT,              /* mainline >= 4.15: 1/0 */
        _BACKEND_MAX,
        _BACKEND_INVALID = -22,
} BackendKind;

const char *backend_kind_to_string(BackendKind k);
BackendKind backend_kind_from_string(const char *s);       /* or -EINVAL */
/* The sysctl path (relative to root), or NULL for BACKEND_NONE. */
const char *backend_sysctl_path(BackendKind k);
/* Whether the backend can be set to mode (mainline has no "auto"). */
bool backend_supports(BackendKind k, KernelMode mode);
/* A patched kernel, with the kernel's own "auto" (armed, triggered). */
bool backend_is_patched(BackendKind k);

int backend_detect(const char *root, BackendKind *ret);

/* Parses what the sysctl file reads back. Pure. */
KernelMode backend_parse_mode(BackendKind k, const char *text);

/* Reads the current mode. On failure returns negative errno and, if
 * ret_error, a sentence saying what failed (malloc'd). */
int backend_read(const char *root, BackendKind k, KernelMode *ret, char **ret_error);

/* Writes mode and reads it back. A read-back mismatch (the v3 handler
 * returns success for strings it rejects) is -EIO. */
int backend_write(const char *root, BackendKind k, KernelMode mode, char **ret_error);
