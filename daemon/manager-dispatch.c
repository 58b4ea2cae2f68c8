/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one dispatch loop. Every source's news (reads, the kernel's log,
 * reader detection, containers, uevents), every timer of the manager's and
 * every client command that changes something comes in here as one event
 * (manager-queue.h) and is handled alone, in the order it came: a handler
 * that finds news for another pushes it (manager_push()), and it is taken
 * after that handler returns, never inside it. What a turn changed is
 * settled once at its end (manager-turn.c).
 *
 * A read is handled at once, in its source's callback: its pidfd and
 * attribution live only there. No read comes while the loop is taking
 * events (sources call back only from their own loop turns); if one did,
 * it could not wait, and counts as lost reads: counting on, to be safe. */
#include <errno.h>
#include <string.h>

#include "log.h"
#include "manager.h"
#include "manager-internal.h"

static int dispatch_timer(Manager *m, ManagerTimer which, uint64_t usec) {
        switch (which) {
        case MANAGER_TIMER_SAMPLE:
                manager_handle_sample(m, usec);
                return 0;
        case MANAGER_TIMER_DEADLINE:
                return manager_apply(m);
        case MANAGER_TIMER_TRIGGER_SETTLE:
                manager_handle_trigger_settled(m);
                return 0;
        case MANAGER_TIMER_ARMED_SAMPLE:
                manager_handle_armed_sample(m);
                return 0;
        case MANAGER_TIMER_METRICS:
                manager_handle_metrics_due(m);
                return 0;
        case MANAGER_TIMER_BEST:
                manager_handle_best_due(m);
                return 0;
        default:
                return -EINVAL;
        }
}

/* Returns the outcome for the events that have one (set-policy, reload). */
static int dispatch_one(Manager *m, const ManagerEvent *ev) {
        manager_count_event(m);
        switch (ev->type) {
        case MANAGER_EVENT_READ:
                manager_handle_read(m, ev->read.event, ev->read.parked);
                return 0;
        case MANAGER_EVENT_KERNEL_LOG:
                manager_handle_kernel_log(m, ev->kernel_log);
                return 0;
        case MANAGER_EVENT_READERS_CHANGED:
                manager_readers_changed(m);
                return 0;
        case MANAGER_EVENT_READERS_RETRIED:
                manager_handle_readers_retried(m);
                return 0;
        case MANAGER_EVENT_READERS_RETRY_FAILED:
                manager_state_changed(m);
                return 0;
        case MANAGER_EVENT_CONTAINERS_CHANGED:
                manager_containers_changed(m);
                return 0;
        case MANAGER_EVENT_HOTPLUG:
                manager_handle_hotplug(m, &ev->hotplug);
                return 0;
        case MANAGER_EVENT_TIMER:
                return dispatch_timer(m, ev->timer.which, ev->timer.usec);
        case MANAGER_EVENT_HOLDS_CHANGED:
                manager_handle_holds_changed(m, ev->holds);
                return 0;
        case MANAGER_EVENT_SET_POLICY:
                return manager_handle_set_policy(m, ev->set_policy.policy, ev->set_policy.dry_run);
        case MANAGER_EVENT_RELOAD:
                return manager_handle_reload(m, ev->reload.ret_error);
        case MANAGER_EVENT_INSPECTED:
                manager_handle_inspected(m, ev->inspected.read, ev->inspected.pending);
                return 0;
        default:
                return log_error_errno(-EINVAL, "Internal error: an event of unknown type %d.", (int) ev->type);
        }
}

/* Takes what is queued, oldest first, until nothing is. */
static void drain(Manager *m) {
        EventQueue *q = manager_queue(m);
        ManagerEvent ev;

        while (event_queue_pop(q, &ev))
                (void) dispatch_one(m, &ev);
}

/* Handles ev now: after what was pushed before it (outside any handling,
 * not taken yet), and before what its handling pushes. While the loop is
 * taking events already, queues it instead. Returns ev's outcome when it
 * was handled now. */
static int dispatch(Manager *m, const ManagerEvent *ev) {
        EventQueue *q = manager_queue(m);
        int r;

        if (event_queue_draining(q)) {
                if (ev->type == MANAGER_EVENT_READ) {
                        /* It cannot wait: its fds close when its source's callback returns. */
                        log_error("Internal error: a read event came while another event was handled; "
                                  "taken as lost reads.");
                        manager_push(m, &(ManagerEvent) { .type = MANAGER_EVENT_READ });
                        return 0;
                }
                if (ev->type == MANAGER_EVENT_SET_POLICY || ev->type == MANAGER_EVENT_RELOAD)
                        /* Its caller waits for the outcome: it cannot be queued. */
                        return log_error_errno(-EBUSY, "Internal error: a %s came while another event was handled.",
                                               manager_event_type_to_string(ev->type));
                manager_push(m, ev);
                return 0;
        }
        event_queue_set_draining(q, true);
        drain(m);
        r = dispatch_one(m, ev);
        drain(m);
        event_queue_set_draining(q, false);
        return r;
}

/* What was pushed outside the loop's handling (at start-up, say). */
int on_queue(sd_event_source *s, void *userdata) {
        Manager *m = userdata;
        EventQueue *q = manager_queue(m);

        if (event_queue_draining(q))
                return 0;
        event_queue_set_draining(q, true);
        drain(m);
        event_queue_set_draining(q, false);
        return 0;
}

/* ---- the sources' callbacks ---- */

static void on_read(Readers *readers, ReadEvent *ev, void *userdata) {
        Manager *m = userdata;

        /* Our own sample's read decides nothing: its fd, if it is to a file
         * the sampler keeps open, spares the samples' next events. */
        if (ev->own_fd) {
                (void) sampler_adopt_quiet_fd(manager_sampler(m), ev->own_fd);
                return;
        }
        (void) dispatch(m, &(ManagerEvent) { .type = MANAGER_EVENT_READ, .read = { .event = ev } });
}

void on_exit_named_read(Exits *x, ReadEvent *ev, void *userdata) {
        (void) dispatch(userdata,
                        &(ManagerEvent) { .type = MANAGER_EVENT_READ, .read = { .event = ev, .parked = true } });
}

/* The answer rides with its read, which is handled as an event of its own. */
void on_inspected(Inspector *in, InspectOutcome outcome, const void *answer, int *fds, size_t n_fds, void *token,
                  void *userdata) {
        bool pending = outcome == INSPECT_PENDING;

        if (!pending)
                inspected_read_answered(token, outcome, answer);
        (void) dispatch(userdata, &(ManagerEvent) { .type = MANAGER_EVENT_INSPECTED,
                                                    .inspected = { .read = token, .pending = pending } });
}

static void on_readers_lost(ReaderWatch *w, void *userdata) {
        (void) dispatch(userdata, &(ManagerEvent) { .type = MANAGER_EVENT_READERS_CHANGED });
}

static void on_readers_retried(ReaderWatch *w, void *userdata) {
        (void) dispatch(userdata, &(ManagerEvent) { .type = MANAGER_EVENT_READERS_RETRIED });
}

static void on_readers_retry_failed(ReaderWatch *w, void *userdata) {
        (void) dispatch(userdata, &(ManagerEvent) { .type = MANAGER_EVENT_READERS_RETRY_FAILED });
}

const ReaderWatchOps manager_reader_watch_ops = {
        .read = on_read,
        .lost = on_readers_lost,
        .retried = on_readers_retried,
        .retry_failed = on_readers_retry_failed,
};

void on_containers_changed(ContainerWatch *w, void *userdata) {
        (void) dispatch(userdata, &(ManagerEvent) { .type = MANAGER_EVENT_CONTAINERS_CHANGED });
}

void on_hotplug_settled(Hotplug *h, const HotplugSettled *what, void *userdata) {
        (void) dispatch(userdata, &(ManagerEvent) { .type = MANAGER_EVENT_HOTPLUG, .hotplug = *what });
}

void on_kmsg(KmsgMonitor *k, const unsigned counts[_KMSG_NUMA_MAX], void *userdata) {
        ManagerEvent ev = { .type = MANAGER_EVENT_KERNEL_LOG };

        memcpy(ev.kernel_log, counts, sizeof ev.kernel_log);
        (void) dispatch(userdata, &ev);
}

/* Every timer of the manager's (manager_add_timers()). */
int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        for (ManagerTimer t = 0; t < _MANAGER_TIMER_MAX; t++)
                if (manager_timer(m, t) == s) {
                        int r = dispatch(m, &(ManagerEvent) { .type = MANAGER_EVENT_TIMER,
                                                              .timer = { .which = t, .usec = usec } });
                        /* A timer is the whole of its loop turn: settle it
                         * now rather than a loop turn later (each sample
                         * moves the status when the allocation rate moves). */
                        manager_turn_end_pending(m);
                        return r;
                }
        return 0;
}

/* ---- the commands (manager.h) ---- */

int manager_set_policy(Manager *m, Policy policy, int dry_run) {
        return dispatch(m, &(ManagerEvent) { .type = MANAGER_EVENT_SET_POLICY,
                                             .set_policy = { .policy = policy, .dry_run = dry_run } });
}

int manager_reload(Manager *m, char **ret_error) {
        return dispatch(m, &(ManagerEvent) { .type = MANAGER_EVENT_RELOAD, .reload = { .ret_error = ret_error } });
}

void manager_holds_changed(Manager *m, const Holds *holds) {
        (void) dispatch(m, &(ManagerEvent) { .type = MANAGER_EVENT_HOLDS_CHANGED, .holds = holds });
}
