/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the kernel is doing: counting, its words, and what it takes to get
 * it where a decision wants it (arming from a counting kernel is coarse,
 * then auto; an unconfirmed trigger is not trusted to count). */

#include <stdio.h>
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

/* A plan in words: "wait", "none", or its writes, e.g. "snapshot coarse, auto". */
static const char *plan_words(const KernelPlan *p, char *buf, size_t size) {
        size_t n = 0;

        buf[0] = '\0';
        if (p->kind == KERNEL_PLAN_NONE)
                return "none";
        if (p->kind == KERNEL_PLAN_WAIT_READS)
                return "wait";
        for (size_t i = 0; i < p->n_writes && n < size; i++)
                n += snprintf(buf + n, size - n, "%s%s%s", i ? ", " : "", p->writes[i].snapshot ? "snapshot " : "",
                              kernel_mode_to_string(p->writes[i].mode));
        return buf;
}

static void test_plans(void) {
        static const struct {
                KernelState k;
                KernelMode want;
                bool rearm, queued;
                const char *plan, *what;
        } cases[] = {
                { K(STRICT, NONE, false), KERNEL_MODE_AUTO, false, false, "snapshot coarse, auto",
                  "arming a counting kernel: snapshot, coarse, then auto" },
                { K(AUTO, TRIGGERED, true), KERNEL_MODE_AUTO, true, false, "snapshot coarse, auto",
                  "re-arming a triggered auto: the same three" },
                { K(AUTO, UNKNOWN, false), KERNEL_MODE_AUTO, true, false, "snapshot coarse, auto",
                  "arming an auto found unknown (taken as counting): the same" },
                { K(COARSE, NONE, false), KERNEL_MODE_AUTO, false, false, "auto",
                  "arming from coarse: auto alone (counters zero already)" },
                { K(STRICT, NONE, false), KERNEL_MODE_COARSE, false, false, "snapshot coarse",
                  "coarse over strict: snapshot first" },
                { K(AUTO, ARMED, false), KERNEL_MODE_COARSE, false, false, "coarse",
                  "coarse over an armed auto: not counting, no snapshot" },
                { K(COARSE, NONE, false), KERNEL_MODE_STRICT, false, false, "strict", "strict over coarse" },
                { K(STRICT, NONE, false), KERNEL_MODE_AUTO, false, true, "wait",
                  "arming while reads are queued: wait for them" },
                { K(STRICT, NONE, false), KERNEL_MODE_COARSE, false, true, "wait",
                  "off while reads are queued: wait for them" },
                { K(COARSE, NONE, false), KERNEL_MODE_STRICT, false, true, "strict",
                  "counting on never waits for queued reads" },
                { K(AUTO, ARMED, false), KERNEL_MODE_AUTO, false, true, "none", "armed already: nothing to wait for" },
                { K(AUTO, ARMED, false), KERNEL_MODE_UNKNOWN, false, false, "none", "leave alone" },
        };
        char buf[128];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                KernelPlan p = kernel_state_plan(&cases[i].k, cases[i].want, cases[i].rearm, cases[i].queued);

                is_str(plan_words(&p, buf, sizeof buf), cases[i].plan, cases[i].what);
                is_int(p.action, kernel_state_action(&cases[i].k, cases[i].want, cases[i].rearm),
                       "  with the action it carries out");
        }
}

int main(void) {
        test_counting_and_words();
        test_actions();
        test_triggered();
        test_plans();
        return tap_done();
}
