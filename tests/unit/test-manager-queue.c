/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's one queue: first in, first out, across growth and the
 * ring's wrap; nothing taken from an empty one; the dispatch loop's flag. */

#include <stdlib.h>

#include "manager-queue.h"
#include "tap.h"

static ManagerEvent timer(uint64_t usec) {
        return (ManagerEvent) { .type = MANAGER_EVENT_TIMER,
                                .timer = { .which = MANAGER_TIMER_SAMPLE, .usec = usec } };
}

static void test_fifo(void) {
        EventQueue *q = event_queue_new();
        ManagerEvent ev;
        bool in_order = true;
        uint64_t next = 0, pushed = 0;

        if (!q)
                abort();
        ok(!event_queue_pop(q, &ev), "an empty queue gives nothing");
        /* Push 5, take 3, many times: the ring wraps and grows with events in it. */
        for (int round = 0; round < 40; round++) {
                for (int i = 0; i < 5; i++) {
                        ManagerEvent t = timer(pushed++);
                        if (event_queue_push(q, &t) < 0)
                                abort();
                }
                for (int i = 0; i < 3; i++) {
                        if (!event_queue_pop(q, &ev) || ev.type != MANAGER_EVENT_TIMER || ev.timer.usec != next)
                                in_order = false;
                        next++;
                }
        }
        is_int((int) event_queue_length(q), 80, "80 events left after 200 pushed and 120 taken");
        while (event_queue_pop(q, &ev)) {
                if (ev.timer.usec != next)
                        in_order = false;
                next++;
        }
        ok(in_order, "taken in the order they were pushed, across the ring's growth and wrap");
        is_int((int) next, 200, "every event taken once");
        is_int((int) event_queue_length(q), 0, "then empty");
        event_queue_free(q);
}

static void test_payload_and_flag(void) {
        EventQueue *q = event_queue_new();
        ManagerEvent in = { .type = MANAGER_EVENT_KERNEL_LOG }, out;

        if (!q)
                abort();
        in.kernel_log[KMSG_NUMA_AUTO_TRIGGERED] = 2;
        (void) event_queue_push(q, &in);
        ok(event_queue_pop(q, &out) && out.type == MANAGER_EVENT_KERNEL_LOG &&
                   out.kernel_log[KMSG_NUMA_AUTO_TRIGGERED] == 2,
           "an event's payload is kept with it");
        ok(!event_queue_draining(q), "not draining at first");
        event_queue_set_draining(q, true);
        ok(event_queue_draining(q), "draining while the loop takes events");
        is_str(manager_event_type_to_string(MANAGER_EVENT_HOTPLUG), "hotplug", "types have names");
        ok(!manager_event_type_to_string(_MANAGER_EVENT_MAX), "  an unknown one has none");
        event_queue_free(q);
}

int main(void) {
        test_fifo();
        test_payload_and_flag();
        return tap_done();
}
