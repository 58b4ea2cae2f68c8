/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "tap.h"

static Transition transition(uint64_t time, KernelMode from, KernelMode to, Cause cause, const char *reason) {
        return (Transition) {
                .time = time, .from = from, .to = to, .kind = TRANSITION_POLICY, .cause = cause,
                .reason = (char *) reason,
        };
}

static void test_ring(void) {
        History h = {};
        char reason[32];
        size_t kept_cause = 0;

        ok(h.n == 0 && h.total == 0, "an empty history");
        for (int i = 0; i < HISTORY_MAX + 10; i++) {
                Transition t;

                snprintf(reason, sizeof reason, "switch %d", i);
                t = transition((uint64_t) i, KERNEL_MODE_STRICT, KERNEL_MODE_COARSE,
                               i % 2 ? CAUSE_PRESSURE_ABOVE : CAUSE_READ, reason);
                history_add(&h, &t);
        }
        is_int((int) h.n, HISTORY_MAX, "full: the last HISTORY_MAX kept");
        is_u64(h.total, (uint64_t) HISTORY_MAX + 10, "  and every one counted");
        is_str(history_at(&h, 0)->reason, "switch 10", "  the oldest kept first (the first ten made room)");
        is_str(history_at(&h, HISTORY_MAX - 1)->reason, "switch 73", "  the newest last");
        is_u64(history_at(&h, 0)->time, 10, "  with its time");
        is_u64(h.by_cause[CAUSE_READ], (HISTORY_MAX + 10) / 2, "by cause: every one, not only those kept (reads)");
        is_u64(h.by_cause[CAUSE_PRESSURE_ABOVE], (HISTORY_MAX + 10) / 2, "  (pressure)");
        for (size_t i = 0; i < h.n; i++)
                kept_cause += history_at(&h, i)->cause == CAUSE_READ;
        is_int((int) kept_cause, HISTORY_MAX / 2, "  the kept ones keep their causes");
        history_done(&h);
}

static void test_copies(void) {
        History h = {};
        char reason[] = "the caller's buffer";
        Transition t = transition(1, KERNEL_MODE_STRICT, KERNEL_MODE_COARSE, CAUSE_READ, reason);
        const Transition *e;

        t.reason_redacted = (char *) "redacted";
        e = history_add(&h, &t);
        reason[0] = 'X';
        is_str(e->reason, "the caller's buffer", "the reason is copied, not borrowed");
        ok(e->reason != t.reason, "  into memory of its own");
        is_str(e->reason_redacted, "redacted", "  and the redacted one");
        t.reason = NULL;
        t.reason_redacted = NULL;
        e = history_add(&h, &t);
        is_str(e->reason, "", "no reason: an empty one");
        ok(e->reason_redacted == NULL, "  and no redacted one: none had a reader");
        history_done(&h);
        ok(h.n == 0, "done: emptied");
}

static void test_format(void) {
        Transition t = transition(1, KERNEL_MODE_AUTO, KERNEL_MODE_STRICT, CAUSE_READ, "r");
        char buf[256];

        t.from_auto = AUTO_STATE_TRIGGERED;
        t.reader.pid = 42;
        t.reader.has_uid = true;
        t.reader.uid = 1000;
        snprintf(t.reader.comm, sizeof t.reader.comm, "cat");
        snprintf(t.reader.path, sizeof t.reader.path, "/proc/vmstat");
        is_str(transition_format_state(&t, false, false, buf, sizeof buf), "auto (triggered)",
               "a triggered auto before a policy switch: who triggered it is the kernel transition's to say");
        is_str(transition_format_state(&t, true, false, buf, sizeof buf), "strict", "the state after: strict");
        t.kind = TRANSITION_KERNEL;
        t.from = KERNEL_MODE_AUTO;
        t.to = KERNEL_MODE_AUTO;
        t.from_auto = AUTO_STATE_ARMED;
        t.to_auto = AUTO_STATE_TRIGGERED;
        is_str(transition_format_state(&t, false, false, buf, sizeof buf), "auto (armed)", "the kernel's own: armed before");
        transition_format_state(&t, true, false, buf, sizeof buf);
        ok(strstr(buf, "triggered by cat (pid 42, uid 1000") != NULL, "  triggered by the reader after (%s)", buf);
        transition_format_state(&t, true, true, buf, sizeof buf);
        ok(strstr(buf, "cat") && !strstr(buf, "pid 42") && !strstr(buf, "1000"),
           "  redacted: the comm, not its pid or uid (%s)", buf);
}

int main(void) {
        test_ring();
        test_copies();
        test_format();
        return tap_done();
}
