/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* The words of the product: what the operator asks for (Policy), what the
 * kernel is in (KernelMode), and the config enums. Each has _to_string and
 * _from_string; _from_string returns the value or -EINVAL. */

typedef enum Policy {
        POLICY_STRICT,
        POLICY_COARSE,
        POLICY_AUTO,
        _POLICY_MAX,
        _POLICY_INVALID = -22,
} Policy;

typedef enum KernelMode {
        KERNEL_MODE_UNKNOWN,
        KERNEL_MODE_STRICT,     /* counting on; mainline "1" */
        KERNEL_MODE_COARSE,     /* counting off; mainline "0" */
        KERNEL_MODE_AUTO,       /* patched kernels only */
        _KERNEL_MODE_MAX,
        _KERNEL_MODE_INVALID = -22,
} KernelMode;

typedef enum OffMode {
        OFF_MODE_AUTO,
        OFF_MODE_COARSE,
        _OFF_MODE_MAX,
        _OFF_MODE_INVALID = -22,
} OffMode;

typedef enum ExitMode {
        EXIT_MODE_STRICT,
        EXIT_MODE_PREVIOUS,
        _EXIT_MODE_MAX,
        _EXIT_MODE_INVALID = -22,
} ExitMode;

typedef enum ExternalChange {
        EXTERNAL_CHANGE_FOLLOW,
        EXTERNAL_CHANGE_OVERRIDE,
        _EXTERNAL_CHANGE_MAX,
        _EXTERNAL_CHANGE_INVALID = -22,
} ExternalChange;

const char *policy_to_string(Policy p);
Policy policy_from_string(const char *s);
const char *kernel_mode_to_string(KernelMode m);
KernelMode kernel_mode_from_string(const char *s);
const char *off_mode_to_string(OffMode m);
OffMode off_mode_from_string(const char *s);
const char *exit_mode_to_string(ExitMode m);
ExitMode exit_mode_from_string(const char *s);
const char *external_change_to_string(ExternalChange m);
ExternalChange external_change_from_string(const char *s);

/* The kernel interface that switches NUMA statistics (backend.c drives it). */
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
/* Whether the backend can be set to mode (mainline has no "auto"). */
bool backend_supports(BackendKind k, KernelMode mode);
/* A patched kernel, with the kernel's own "auto" (armed, triggered). */
bool backend_is_patched(BackendKind k);
