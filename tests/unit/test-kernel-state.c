/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the kernel is doing: counting, its words, and what it takes to get
 * it where a decision wants it (arming from a counting kernel is coarse,
 * then auto; an unconfirmed trigger is not trusted to count). */

#include <string.h>

#include "kernel-state.h"
#include "macro.h"
#include "tap.h"

#define K(m, a, c) ((KernelState) { .mode = KERNEL_MODE_##m, .auto_state = AUTO_STATE_##a, .confirmed = (c) })

static void test_counting_and_words(void) {
        static const struct {
                KernelState k;
                bool counting;
                const char *text;
        } cases[] = {
                { K(STRICT, NONE, false), true, "strict" },
                { K(COARSE, NONE, false), false, "coarse" },
                { K(AUTO, ARMED, false), false, "auto (armed)" },
                { K(AUTO, TRIGGERED, true), true, "auto (triggered by a read the daemon could not see)" },
                { K(AUTO, UNKNOWN, false), true, "auto (armed or triggered: unknown)" },
                { K(UNKNOWN, NONE, false), false, "unknown" },
        };
        char buf[256];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                is_int(kernel_state_counting(&cases[i].k), cases[i].counting, cases[i].text);
                is_str(kernel_state_format(&cases[i].k, buf, sizeof buf), cases[i].text, "  its words");
        }

        KernelState t = K(AUTO, TRIGGERED, false);
        t.trigger_cause = CAUSE_IGNORED_READ;
        t.triggered_by = (ReaderRef) { .pid = 7, .has_uid = true, .comm = "x\\n<0>forged", .path = "/proc/vmstat" };
        is_str(kernel_state_format(&t, buf, sizeof buf),
               "auto (triggered by x\\\\n<0>forged (pid 7, uid 0) read /proc/vmstat, ignored)",
               "triggered by an ignored reader, its name escaped");
}

static void test_actions(void) {
        static const struct {
                KernelState k;
                KernelMode want;
                bool rearm;
                KernelAction action;
                const char *what;
        } cases[] = {
                { K(STRICT, NONE, false), KERNEL_MODE_STRICT, false, KERNEL_ACTION_NONE, "strict wanted, strict" },
                { K(AUTO, ARMED, false), KERNEL_MODE_STRICT, false, KERNEL_ACTION_WRITE, "strict wanted, armed: write" },
                { K(AUTO, TRIGGERED, true), KERNEL_MODE_STRICT, false, KERNEL_ACTION_NONE,
                  "strict wanted, triggered and the log said so: counting already" },
                { K(AUTO, TRIGGERED, false), KERNEL_MODE_STRICT, false, KERNEL_ACTION_WRITE,
                  "strict wanted, triggered by our guess only: write strict (the race goes to counting on)" },
                { K(STRICT, NONE, false), KERNEL_MODE_AUTO, false, KERNEL_ACTION_ARM,
                  "off (auto) wanted, strict: arm (auto over strict keeps counting)" },
                { K(COARSE, NONE, false), KERNEL_MODE_AUTO, false, KERNEL_ACTION_ARM, "off (auto) wanted, coarse: arm" },
                { K(AUTO, ARMED, false), KERNEL_MODE_AUTO, false, KERNEL_ACTION_NONE, "armed is off" },
                { K(AUTO, TRIGGERED, true), KERNEL_MODE_AUTO, false, KERNEL_ACTION_NONE,
                  "triggered, re-arm held back: nothing" },
                { K(AUTO, TRIGGERED, true), KERNEL_MODE_AUTO, true, KERNEL_ACTION_ARM, "triggered, re-arm due: arm" },
                { K(AUTO, UNKNOWN, false), KERNEL_MODE_AUTO, true, KERNEL_ACTION_ARM, "unknown: arm when allowed" },
                { K(AUTO, TRIGGERED, true), KERNEL_MODE_COARSE, false, KERNEL_ACTION_WRITE, "coarse wanted, auto: write" },
                { K(COARSE, NONE, false), KERNEL_MODE_COARSE, false, KERNEL_ACTION_NONE, "coarse wanted, coarse" },
                { K(AUTO, ARMED, false), KERNEL_MODE_UNKNOWN, false, KERNEL_ACTION_NONE, "leave alone" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                is_int(kernel_state_action(&cases[i].k, cases[i].want, cases[i].rearm), cases[i].action, cases[i].what);
}

static void test_triggered(void) {
        ReaderRef cat = { .pid = 42, .comm = "cat", .path = "/proc/vmstat" };
        KernelState k = kernel_state_triggered(CAUSE_READ, &cat, true);

        ok(k.mode == KERNEL_MODE_AUTO && k.auto_state == AUTO_STATE_TRIGGERED, "triggered: auto, triggered");
        ok(k.confirmed && k.trigger_cause == CAUSE_READ && k.triggered_by.pid == 42, "  with its cause and reader");
        ok(kernel_state_counting_for_sure(&k), "  a confirmed trigger counts for sure");
        k = kernel_state_triggered(CAUSE_ARMED_SAMPLE, &cat, false);
        ok(k.triggered_by.pid == 0 && k.triggered_by.comm[0] == '\0', "our own sample names no reader");
        ok(!kernel_state_counting_for_sure(&k), "  an inferred trigger is not trusted to count");
        ok(kernel_state_counting(&k), "  though it is taken as counting (no saving claimed)");
        ok(kernel_state_counting_for_sure(&(KernelState) { .mode = KERNEL_MODE_STRICT }), "strict counts for sure");
        ok(!kernel_state_counting_for_sure(&(KernelState) { .mode = KERNEL_MODE_AUTO, .auto_state = AUTO_STATE_ARMED }),
           "armed does not");
}

int main(void) {
        test_counting_and_words();
        test_actions();
        test_triggered();
        return tap_done();
}
