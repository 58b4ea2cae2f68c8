/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The end of a loop turn. What a handler changed is settled once, right
 * after it and before the next event is taken: the policy's deadline, then
 * the status (Monitor clients, STATUS=). A read that switches counting
 * changes the decision, the history and the reader table: one deadline,
 * one status. */
#include <stdlib.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"
#include "manager-internal.h"
#include "time-util.h"

struct TurnEnd {
        Manager *manager;
        sd_event_source *source;
        bool status;                    /* announce the status */
        bool deadline;                  /* compute the deadline again */
        bool deadline_now;              /* ...or set it for now: off waits for queued reads */
        uint64_t announced;             /* status_fingerprint() last announced (STATUS=, Monitor) */
};

static int on_turn_end(sd_event_source *s, void *userdata) {
        TurnEnd *t = userdata;

        manager_turn_end(t->manager);
        return 0;
}

/* A one-shot source, dispatched before any other when a handler asks. */
int turn_end_new(Manager *m, TurnEnd **ret) {
        TurnEnd *t;
        int r;

        t = calloc(1, sizeof *t);
        if (!t)
                return -ENOMEM;
        t->manager = m;
        r = sd_event_add_defer(manager_event(m), &t->source, on_turn_end, t);
        if (r >= 0) {
                (void) sd_event_source_set_description(t->source, "turn-end");
                r = sd_event_source_set_priority(t->source, SD_EVENT_PRIORITY_IMPORTANT - 1);
        }
        if (r >= 0)
                r = sd_event_source_set_enabled(t->source, SD_EVENT_OFF);
        if (r < 0) {
                turn_end_free(t);
                return r;
        }
        *ret = t;
        return 0;
}

TurnEnd *turn_end_free(TurnEnd *t) {
        if (!t)
                return NULL;
        sd_event_source_disable_unref(t->source);
        free(t);
        return NULL;
}

/* Tells Monitor clients and systemd (STATUS=) the status, if it changed
 * since they last heard. */
static void announce(Manager *m, TurnEnd *t) {
        char line[REASON_MAX + 128];
        uint64_t fp;
        Status st;

        status_build(m, now_usec(CLOCK_MONOTONIC), &st);
        fp = status_fingerprint(&st);
        if (fp == t->announced)
                return;
        t->announced = fp;
        service_notify_monitors(manager_service(m), &st);
        (void) sd_notifyf(false, "STATUS=%s", status_format_notify(&st, line, sizeof line));
}

static void turn_end_due(Manager *m) {
        TurnEnd *t = manager_turn(m);

        /* Without the loop's source (being set up, or stopping): now. */
        if (manager_shut_down(m) || !t || sd_event_source_set_enabled(t->source, SD_EVENT_ONESHOT) < 0)
                manager_turn_end(m);
}

void manager_turn_end(Manager *m) {
        TurnEnd *t = manager_turn(m);
        sd_event_source *deadline = manager_timer(m, MANAGER_TIMER_DEADLINE);

        if (!t)
                return;
        (void) sd_event_source_set_enabled(t->source, SD_EVENT_OFF);
        if (t->deadline_now)
                event_timer_at(deadline, now_usec(CLOCK_MONOTONIC));
        else if (t->deadline)
                event_timer_at(deadline, engine_next_deadline(manager_engine(m)));
        t->deadline_now = t->deadline = false;
        if (t->status) {
                t->status = false;
                announce(m, t);
        }
}

void manager_turn_end_pending(Manager *m) {
        TurnEnd *t = manager_turn(m);

        if (t && (t->deadline_now || t->deadline || t->status))
                manager_turn_end(m);
}

/* Before the loop's sources exist (start-up) nothing is kept: the
 * deadline timer comes with them, and the start's first event announces. */
void manager_state_changed(Manager *m) {
        TurnEnd *t = manager_turn(m);

        if (t)
                t->status = true;
        turn_end_due(m);
}

void manager_schedule_deadline(Manager *m) {
        TurnEnd *t = manager_turn(m);

        if (t)
                t->deadline = true;
        turn_end_due(m);
}

/* A switch off waits for queued read events: the deadline comes right
 * after them (they are taken first), whatever else this turn moved it to. */
void manager_deadline_now(Manager *m) {
        TurnEnd *t = manager_turn(m);

        if (t)
                t->deadline_now = true;
        turn_end_due(m);
}
