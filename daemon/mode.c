/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <string.h>

#include "macro.h"
#include "mode.h"

/* Index by enum value; lookups are exact and case-sensitive, as the config
 * file and the varlink API spell them. */
static const char *table_to_string(const char *const *table, size_t n, int i) {
        if (i < 0 || (size_t) i >= n)
                return NULL;
        return table[i];
}

static int table_from_string(const char *const *table, size_t n, const char *s) {
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (table[i] && strcmp(table[i], s) == 0)
                        return (int) i;
        return -EINVAL;
}

static const char *const policy_table[_POLICY_MAX] = {
        [POLICY_STRICT] = "strict",
        [POLICY_COARSE] = "coarse",
        [POLICY_AUTO] = "auto",
};

const char *policy_to_string(Policy p) {
        return table_to_string(policy_table, ELEMENTSOF(policy_table), p);
}

Policy policy_from_string(const char *s) {
        return table_from_string(policy_table, ELEMENTSOF(policy_table), s);
}

static const char *const kernel_mode_table[_KERNEL_MODE_MAX] = {
        [KERNEL_MODE_UNKNOWN] = "unknown",
        [KERNEL_MODE_STRICT] = "strict",
        [KERNEL_MODE_COARSE] = "coarse",
        [KERNEL_MODE_AUTO] = "auto",
};

const char *kernel_mode_to_string(KernelMode m) {
        return table_to_string(kernel_mode_table, ELEMENTSOF(kernel_mode_table), m);
}

KernelMode kernel_mode_from_string(const char *s) {
        /* "unknown" is something we report, never something the kernel says. */
        int m = table_from_string(kernel_mode_table, ELEMENTSOF(kernel_mode_table), s);
        return m == KERNEL_MODE_UNKNOWN ? _KERNEL_MODE_INVALID : (KernelMode) m;
}

static const char *const off_mode_table[_OFF_MODE_MAX] = {
        [OFF_MODE_AUTO] = "auto",
        [OFF_MODE_COARSE] = "coarse",
};

const char *off_mode_to_string(OffMode m) {
        return table_to_string(off_mode_table, ELEMENTSOF(off_mode_table), m);
}

OffMode off_mode_from_string(const char *s) {
        return table_from_string(off_mode_table, ELEMENTSOF(off_mode_table), s);
}

static const char *const exit_mode_table[_EXIT_MODE_MAX] = {
        [EXIT_MODE_STRICT] = "strict",
        [EXIT_MODE_PREVIOUS] = "previous",
};

const char *exit_mode_to_string(ExitMode m) {
        return table_to_string(exit_mode_table, ELEMENTSOF(exit_mode_table), m);
}

ExitMode exit_mode_from_string(const char *s) {
        return table_from_string(exit_mode_table, ELEMENTSOF(exit_mode_table), s);
}

static const char *const external_change_table[_EXTERNAL_CHANGE_MAX] = {
        [EXTERNAL_CHANGE_FOLLOW] = "follow",
        [EXTERNAL_CHANGE_OVERRIDE] = "override",
};

const char *external_change_to_string(ExternalChange m) {
        return table_to_string(external_change_table, ELEMENTSOF(external_change_table), m);
}

ExternalChange external_change_from_string(const char *s) {
        return table_from_string(external_change_table, ELEMENTSOF(external_change_table), s);
}
