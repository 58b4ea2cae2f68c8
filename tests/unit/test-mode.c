/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "mode.h"
#include "tap.h"

static void test_round_trips(void) {
        for (int p = 0; p < _POLICY_MAX; p++)
                ok(policy_from_string(policy_to_string(p)) == p, "policy %s round-trips", policy_to_string(p));
        for (int k = KERNEL_MODE_STRICT; k < _KERNEL_MODE_MAX; k++)
                ok(kernel_mode_from_string(kernel_mode_to_string(k)) == k, "kernel mode %s round-trips",
                   kernel_mode_to_string(k));
        for (int o = 0; o < _OFF_MODE_MAX; o++)
                ok(off_mode_from_string(off_mode_to_string(o)) == o, "off_mode %s round-trips", off_mode_to_string(o));
        for (int e = 0; e < _EXIT_MODE_MAX; e++)
                ok(exit_mode_from_string(exit_mode_to_string(e)) == e, "exit_mode %s round-trips",
                   exit_mode_to_string(e));
        for (int c = 0; c < _EXTERNAL_CHANGE_MAX; c++)
                ok(external_change_from_string(external_change_to_string(c)) == c, "on_external_change %s round-trips",
                   external_change_to_string(c));
        for (int b = 0; b < _BACKEND_MAX; b++)
                ok(backend_kind_from_string(backend_kind_to_string(b)) == b, "backend %s round-trips",
                   backend_kind_to_string(b));
}

static void test_words(void) {
        is_str(kernel_mode_to_string(KERNEL_MODE_UNKNOWN), "unknown", "unknown is reported");
        ok(kernel_mode_from_string("unknown") == _KERNEL_MODE_INVALID, "  but never parsed: the kernel never says it");
        ok(policy_from_string("Strict") == _POLICY_INVALID, "words are exact: Strict is not strict");
        ok(policy_from_string("") == _POLICY_INVALID && policy_from_string(NULL) == _POLICY_INVALID,
           "empty and NULL are invalid");
        ok(policy_to_string(_POLICY_MAX) == NULL && policy_to_string(-1) == NULL, "out of range: NULL");
}

static void test_backends(void) {
        ok(!backend_supports(BACKEND_NONE, KERNEL_MODE_STRICT), "no interface: nothing can be set");
        ok(backend_supports(BACKEND_NUMA_STAT, KERNEL_MODE_STRICT) && backend_supports(BACKEND_NUMA_STAT, KERNEL_MODE_COARSE),
           "mainline: strict and coarse");
        ok(!backend_supports(BACKEND_NUMA_STAT, KERNEL_MODE_AUTO), "  not auto");
        ok(backend_supports(BACKEND_NUMA_STATS_MODE, KERNEL_MODE_AUTO) && backend_supports(BACKEND_VMSTAT_MODE, KERNEL_MODE_AUTO),
           "patched kernels (both spellings): auto");
        ok(!backend_supports(BACKEND_NUMA_STATS_MODE, KERNEL_MODE_UNKNOWN), "unknown is never set");
        ok(backend_is_patched(BACKEND_NUMA_STATS_MODE) && backend_is_patched(BACKEND_VMSTAT_MODE) &&
           !backend_is_patched(BACKEND_NUMA_STAT) && !backend_is_patched(BACKEND_NONE),
           "patched: numa_stats_mode and vmstat_mode only");
}

int main(void) {
        test_round_trips();
        test_words();
        test_backends();
        return tap_done();
}
