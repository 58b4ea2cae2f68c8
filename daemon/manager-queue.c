/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's one queue (manager-queue.h): a FIFO that grows. */
#include <errno.h>
#include <stdlib.h>

#include "macro.h"
#include "manager-queue.h"

struct EventQueue {
        ManagerEvent *items;
        size_t head, n, allocated;      /* a ring: n events from head */
        bool draining;
};

static const char *const type_names[_MANAGER_EVENT_MAX] = {
        [MANAGER_EVENT_READ] = "read",
        [MANAGER_EVENT_KERNEL_LOG] = "kernel-log",
        [MANAGER_EVENT_READERS_CHANGED] = "readers-changed",
        [MANAGER_EVENT_READERS_RETRIED] = "readers-retried",
        [MANAGER_EVENT_READERS_RETRY_FAILED] = "readers-retry-failed",
        [MANAGER_EVENT_CONTAINERS_CHANGED] = "containers-changed",
        [MANAGER_EVENT_HOTPLUG] = "hotplug",
        [MANAGER_EVENT_TIMER] = "timer",
        [MANAGER_EVENT_HOLDS_CHANGED] = "holds-changed",
        [MANAGER_EVENT_SET_POLICY] = "set-policy",
        [MANAGER_EVENT_RELOAD] = "reload",
        [MANAGER_EVENT_INSPECTED] = "inspected",
};

const char *manager_event_type_to_string(ManagerEventType t) {
        return t >= 0 && t < _MANAGER_EVENT_MAX ? type_names[t] : NULL;
}

EventQueue *event_queue_new(void) {
        return calloc(1, sizeof(EventQueue));
}

EventQueue *event_queue_free(EventQueue *q) {
        if (q)
                free(q->items);
        free(q);
        return NULL;
}

/* Doubles the ring, its events moved to the front in order. */
static int grow(EventQueue *q) {
        size_t allocated = q->allocated ? q->allocated * 2 : 8;
        ManagerEvent *items;

        items = calloc(allocated, sizeof *items);
        if (!items)
                return -ENOMEM;
        for (size_t i = 0; i < q->n; i++)
                items[i] = q->items[(q->head + i) % q->allocated];
        free(q->items);
        q->items = items;
        q->allocated = allocated;
        q->head = 0;
        return 0;
}

int event_queue_push(EventQueue *q, const ManagerEvent *ev) {
        int r;

        if (q->n == q->allocated) {
                r = grow(q);
                if (r < 0)
                        return r;
        }
        q->items[(q->head + q->n) % q->allocated] = *ev;
        q->n++;
        return 0;
}

bool event_queue_pop(EventQueue *q, ManagerEvent *ret) {
        if (q->n == 0)
                return false;
        *ret = q->items[q->head];
        q->head = (q->head + 1) % q->allocated;
        q->n--;
        return true;
}

size_t event_queue_length(const EventQueue *q) {
        return q->n;
}

bool event_queue_draining(const EventQueue *q) {
        return q->draining;
}

void event_queue_set_draining(EventQueue *q, bool draining) {
        q->draining = draining;
}
