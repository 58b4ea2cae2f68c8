/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <string.h>

#include "mode.h"
#include "string-table.h"

static const char *const policy_table[_POLICY_MAX] = {
        [POLICY_STRICT] = "strict",
        [POLICY_COARSE] = "coarse",
        [POLICY_AUTO] = "auto",
};

DEFINE_STRING_TABLE_LOOKUP(policy, Policy)

static const char *const kernel_mode_table[_KERNEL_MODE_MAX] = {
        [KERNEL_MODE_UNKNOWN] = "unknown",
        [KERNEL_MODE_STRICT] = "strict",
        [KERNEL_MODE_COARSE] = "coarse",
        [KERNEL_MODE_AUTO] = "auto",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(kernel_mode, KernelMode)

KernelMode kernel_mode_from_string(const char *s) {
        /* "unknown" is something we report, never something the kernel says. */
        int m = string_table_find(kernel_mode_table, ELEMENTSOF(kernel_mode_table), s);
        return m == KERNEL_MODE_UNKNOWN ? _KERNEL_MODE_INVALID : (KernelMode) m;
}

static const char *const off_mode_table[_OFF_MODE_MAX] = {
        [OFF_MODE_AUTO] = "auto",
        [OFF_MODE_COARSE] = "coarse",
};

DEFINE_STRING_TABLE_LOOKUP(off_mode, OffMode)

static const char *const exit_mode_table[_EXIT_MODE_MAX] = {
        [EXIT_MODE_STRICT] = "strict",
        [EXIT_MODE_PREVIOUS] = "previous",
};

DEFINE_STRING_TABLE_LOOKUP(exit_mode, ExitMode)

static const char *const external_change_table[_EXTERNAL_CHANGE_MAX] = {
        [EXTERNAL_CHANGE_FOLLOW] = "follow",
        [EXTERNAL_CHANGE_OVERRIDE] = "override",
};

DEFINE_STRING_TABLE_LOOKUP(external_change, ExternalChange)

static const char *const backend_kind_table[_BACKEND_MAX] = {
        [BACKEND_NONE] = "none",
        [BACKEND_NUMA_STATS_MODE] = "numa_stats_mode",
        [BACKEND_VMSTAT_MODE] = "vmstat_mode",
        [BACKEND_NUMA_STAT] = "numa_stat",
};

DEFINE_STRING_TABLE_LOOKUP(backend_kind, BackendKind)

bool backend_is_patched(BackendKind k) {
        return k == BACKEND_NUMA_STATS_MODE || k == BACKEND_VMSTAT_MODE;
}

bool backend_supports(BackendKind k, KernelMode mode) {
        switch (mode) {
        case KERNEL_MODE_STRICT:
        case KERNEL_MODE_COARSE:
                return k != BACKEND_NONE;
        case KERNEL_MODE_AUTO:
                return backend_is_patched(k);
        default:
                return false;
        }
}
