/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The manager's one queue: what each source saw, as an event, taken in
 * the order it came. manager-dispatch.c is the only consumer; any file of
 * the manager may push (a handler that finds news for another pushes it,
 * rather than calling that handler). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "holds.h"
#include "hotplug.h"
#include "kmsg.h"
#include "policy.h"
#include "readers.h"

typedef struct InspectedRead InspectedRead;

typedef enum ManagerTimer {
        MANAGER_TIMER_SAMPLE,           /* the next sample */
        MANAGER_TIMER_DEADLINE,         /* the policy's next deadline */
        MANAGER_TIMER_TRIGGER_SETTLE,   /* a logged trigger waits for its read until then */
        MANAGER_TIMER_ARMED_SAMPLE,     /* the next armed sample */
        MANAGER_TIMER_METRICS,          /* the next textfile write */
        MANAGER_TIMER_BEST,             /* the next step of planning the best possible (idle priority) */
        _MANAGER_TIMER_MAX,
} ManagerTimer;

typedef enum ManagerEventType {
        MANAGER_EVENT_READ,                     /* a read event; its fds live only while it is pushed */
        MANAGER_EVENT_KERNEL_LOG,               /* what the kernel logged */
        MANAGER_EVENT_READERS_CHANGED,          /* reader detection lost, or back */
        MANAGER_EVENT_READERS_RETRIED,          /* a new group after a loss: to be marked */
        MANAGER_EVENT_READERS_RETRY_FAILED,     /* none yet; the next try is set */
        MANAGER_EVENT_CONTAINERS_CHANGED,       /* containers' procfs instances came or went */
        MANAGER_EVENT_HOTPLUG,                  /* uevents settled */
        MANAGER_EVENT_TIMER,                    /* one of the manager's timers is due */
        MANAGER_EVENT_HOLDS_CHANGED,            /* the holds in force changed */
        MANAGER_EVENT_SET_POLICY,               /* a client's set-policy */
        MANAGER_EVENT_RELOAD,                   /* SIGHUP, or a client's reload */
        MANAGER_EVENT_INSPECTED,                /* a look into a reader's process answered, or did not in time */
        _MANAGER_EVENT_MAX,
} ManagerEventType;

typedef struct ManagerEvent {
        ManagerEventType type;
        union {
                struct {
                        ReadEvent *event;
                        bool parked;    /* handed back by the exit records: not parked again */
                } read;
                unsigned kernel_log[_KMSG_NUMA_MAX];    /* records of each kind */
                HotplugSettled hotplug;
                struct {
                        ManagerTimer which;
                        uint64_t usec;  /* the time it was set for */
                } timer;
                const Holds *holds;
                struct {
                        Policy policy;
                        int dry_run;    /* <0: unchanged */
                } set_policy;
                struct {
                        char **ret_error;       /* the caller's, while it waits */
                } reload;
                struct {
                        InspectedRead *read;    /* owned by the event, unless pending */
                        bool pending;           /* past the read's patience: the look goes on */
                } inspected;
        };
} ManagerEvent;

const char *manager_event_type_to_string(ManagerEventType t);

typedef struct EventQueue EventQueue;

EventQueue *event_queue_new(void);
EventQueue *event_queue_free(EventQueue *q);
/* Appends a copy of ev. -ENOMEM if it cannot grow. */
int event_queue_push(EventQueue *q, const ManagerEvent *ev);
/* Takes the oldest event into *ret; false when empty. */
bool event_queue_pop(EventQueue *q, ManagerEvent *ret);
size_t event_queue_length(const EventQueue *q);
/* Whether the dispatch loop is taking events now: an event pushed
 * meanwhile waits for it, rather than being handled inside another. */
bool event_queue_draining(const EventQueue *q);
void event_queue_set_draining(EventQueue *q, bool draining);
