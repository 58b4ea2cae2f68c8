/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "macro.h"
#include "policy.h"
#include "tap.h"

static void test_decide(void) {
        static const struct {
                Policy policy;
                BackendKind backend;
                KernelMode mode;
                const char *reason_has;
        } cases[] = {
                { POLICY_STRICT, BACKEND_NUMA_STAT, KERNEL_MODE_STRICT, "policy strict" },
                { POLICY_COARSE, BACKEND_NUMA_STAT, KERNEL_MODE_COARSE, "policy coarse" },
                { POLICY_AUTO, BACKEND_NUMA_STAT, KERNEL_MODE_STRICT, "policy auto" },
                { POLICY_STRICT, BACKEND_NUMA_STATS_MODE, KERNEL_MODE_STRICT, "policy strict" },
                /* Policy coarse means coarse, even where off_mode would say auto. */
                { POLICY_COARSE, BACKEND_NUMA_STATS_MODE, KERNEL_MODE_COARSE, "never kept" },
                { POLICY_COARSE, BACKEND_VMSTAT_MODE, KERNEL_MODE_COARSE, "policy coarse" },
                { POLICY_STRICT, BACKEND_NONE, KERNEL_MODE_UNKNOWN, "observing only" },
                { POLICY_COARSE, BACKEND_NONE, KERNEL_MODE_UNKNOWN, "observing only" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                PolicyInput in = { .policy = cases[i].policy, .backend = cases[i].backend };
                Decision d = {};
                char name[128];

                policy_decide(&in, &d);
                snprintf(name, sizeof name, "policy %s on %s → %s", policy_to_string(cases[i].policy),
                         backend_kind_to_string(cases[i].backend), kernel_mode_to_string(cases[i].mode));
                is_int(d.mode, cases[i].mode, name);
                ok(strstr(d.reason, cases[i].reason_has), "reason explains: %s", d.reason);
        }
}

static void test_exit_mode(void) {
        is_int(policy_exit_mode(EXIT_MODE_STRICT, BACKEND_NUMA_STAT, KERNEL_MODE_COARSE), KERNEL_MODE_STRICT,
               "exit strict leaves counting on even if it was off at start");
        is_int(policy_exit_mode(EXIT_MODE_PREVIOUS, BACKEND_NUMA_STAT, KERNEL_MODE_COARSE), KERNEL_MODE_COARSE,
               "exit previous restores what was found");
        is_int(policy_exit_mode(EXIT_MODE_PREVIOUS, BACKEND_NUMA_STATS_MODE, KERNEL_MODE_AUTO), KERNEL_MODE_AUTO,
               "exit previous restores patched auto");
        is_int(policy_exit_mode(EXIT_MODE_PREVIOUS, BACKEND_NUMA_STAT, KERNEL_MODE_UNKNOWN), KERNEL_MODE_STRICT,
               "previous unknown falls back to strict");
        is_int(policy_exit_mode(EXIT_MODE_STRICT, BACKEND_NONE, KERNEL_MODE_UNKNOWN), KERNEL_MODE_UNKNOWN,
               "nothing to restore without a backend");
}

int main(void) {
        test_decide();
        test_exit_mode();
        return tap_done();
}
