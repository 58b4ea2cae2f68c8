/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The end of a loop turn. What a handler changed is settled once, right
 * after it and before the next event is taken: the policy's deadline, then
 * the status (Monitor clients, STATUS=). A read that switches counting
 * changes the decision, the history and the reader table: one deadline,
 * one status. */
#include "manager.h"
#include "manager-private.h"
#include "time-util.h"

static int on_turn_end(sd_event_source *s, void *userdata) {
        manager_turn_end(userdata);
        return 0;
}

/* A one-shot source, dispatched before any other when a handler asks. */
int manager_add_turn_end(Manager *m) {
        int r;

        r = sd_event_add_defer(m->event, &m->turn.source, on_turn_end, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(m->turn.source, "turn-end");
        r = sd_event_source_set_priority(m->turn.source, SD_EVENT_PRIORITY_IMPORTANT - 1);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->turn.source, SD_EVENT_OFF);
        return r;
}

static void turn_end_due(Manager *m) {
        /* Without the loop's source (being set up, or stopping): now. */
        if (m->shut_down || !m->turn.source || sd_event_source_set_enabled(m->turn.source, SD_EVENT_ONESHOT) < 0)
                manager_turn_end(m);
}

void manager_turn_end(Manager *m) {
        (void) sd_event_source_set_enabled(m->turn.source, SD_EVENT_OFF);
        if (m->turn.deadline_now)
                event_timer_at(m->deadline_timer, now_usec(CLOCK_MONOTONIC));
        else if (m->turn.deadline)
                event_timer_at(m->deadline_timer, engine_next_deadline(m->engine));
        m->turn.deadline_now = m->turn.deadline = false;
        if (m->turn.status) {
                m->turn.status = false;
                manager_announce_now(m);
        }
}

void manager_turn_end_pending(Manager *m) {
        if (m->turn.deadline_now || m->turn.deadline || m->turn.status)
                manager_turn_end(m);
}

void manager_state_changed(Manager *m) {
        m->turn.status = true;
        turn_end_due(m);
}

void manager_schedule_deadline(Manager *m) {
        m->turn.deadline = true;
        turn_end_due(m);
}

/* A switch off waits for queued read events: the deadline comes right
 * after them (they are taken first), whatever else this turn moved it to. */
void manager_deadline_now(Manager *m) {
        m->turn.deadline_now = true;
        turn_end_due(m);
}
