/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hotplug.h"
#include "log.h"
#include "macro.h"
#include "strutil.h"
#include "time-util.h"
#include "uevent.h"

/* A burst is told this long after its first uevent. */
#define HOTPLUG_SETTLE_USEC (100 * USEC_PER_MSEC)

struct Hotplug {
        UeventMonitor *uevents;         /* NULL: none heard */
        char *error;
        sd_event_source *timer;         /* the burst's end */
        hotplug_settled_t settled;
        void *userdata;
        HotplugSettled pending;         /* what the burst so far was about */
        uint64_t changes;
        uint64_t changed_at;
};

static int on_settled(sd_event_source *s, uint64_t usec, void *userdata) {
        Hotplug *h = userdata;
        HotplugSettled what = h->pending;

        h->pending = (HotplugSettled) {};
        h->settled(h, &what, h->userdata);
        return 0;
}

static void on_uevent(UeventMonitor *u, const Uevent *ev, void *userdata) {
        Hotplug *h = userdata;
        int enabled = SD_EVENT_OFF;

        log_debug("Kernel uevent: %s %s.", ev->action, ev->devpath);
        h->changes++;
        h->changed_at = now_usec(CLOCK_REALTIME);
        h->pending.nodes = h->pending.nodes || ev->subsystem == UEVENT_NODE;
        h->pending.cpus = h->pending.cpus || ev->subsystem == UEVENT_CPU;
        (void) sd_event_source_get_enabled(h->timer, &enabled);
        if (enabled == SD_EVENT_OFF) {
                (void) sd_event_source_set_time(h->timer, now_usec(CLOCK_MONOTONIC) + HOTPLUG_SETTLE_USEC);
                (void) sd_event_source_set_enabled(h->timer, SD_EVENT_ONESHOT);
        }
}

int hotplug_new(sd_event *event, hotplug_settled_t settled, void *userdata, Hotplug **ret) {
        Hotplug *h;
        int r;

        h = calloc(1, sizeof *h);
        if (!h)
                return -ENOMEM;
        *h = (Hotplug) { .settled = settled, .userdata = userdata };
        r = sd_event_add_time(event, &h->timer, CLOCK_MONOTONIC, USEC_INFINITY, USEC_PER_MSEC, on_settled, h);
        if (r >= 0) {
                (void) sd_event_source_set_description(h->timer, "topology-settle");
                r = sd_event_source_set_enabled(h->timer, SD_EVENT_OFF);
        }
        if (r < 0) {
                hotplug_free(h);
                return r;
        }
        r = uevent_monitor_new(event, on_uevent, h, &h->uevents);
        if (r < 0) {
                log_warning_errno(r, "Cannot listen to kernel uevents, hotplug goes unnoticed: %m");
                set_source_error(&h->error, r, "uevent socket unavailable: %m");
        }
        *ret = h;
        return 0;
}

Hotplug *hotplug_free(Hotplug *h) {
        if (!h)
                return NULL;
        uevent_monitor_free(h->uevents);
        sd_event_source_disable_unref(h->timer);
        free(h->error);
        free(h);
        return NULL;
}

bool hotplug_listening(const Hotplug *h) {
        return h && h->uevents;
}

const char *hotplug_error(const Hotplug *h) {
        return h ? h->error : NULL;
}

uint64_t hotplug_changes(const Hotplug *h) {
        return h ? h->changes : 0;
}

uint64_t hotplug_changed_at(const Hotplug *h) {
        return h ? h->changed_at : 0;
}
