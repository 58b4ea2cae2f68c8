/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Holds: counting kept on for a client while its connection lasts, or until
 * its timeout. Private to this file; the manager hears of changes. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "holds.h"
#include "log.h"
#include "macro.h"
#include "readers.h"
#include "time-util.h"

typedef struct Hold {
        Holds *set;
        HoldInfo info;
        Varlink *link;                  /* ref; NULL once released */
        sd_event_source *timer;         /* info.until */
        bool released;                  /* in force until what was queued before is taken */
} Hold;

struct Holds {
        sd_event *event;
        holds_changed_t changed;
        void *userdata;
        Hold **items;                   /* oldest first */
        size_t n;
        sd_event_source *release;       /* one-shot: drops the released holds */
        uint64_t last_id;
        usec_t held_since;
        bool stopped;
};

static Hold *hold_free(Hold *h) {
        if (!h)
                return NULL;
        sd_event_source_disable_unref(h->timer);
        varlink_unref(h->link);
        free(h->info.reason);
        free(h);
        return NULL;
}

static Hold *find(const Holds *hs, uint64_t id) {
        for (size_t i = 0; hs && id && i < hs->n; i++)
                if (hs->items[i]->info.id == id)
                        return hs->items[i];
        return NULL;
}

/* Drops the released holds; returns how many. */
static size_t drop_released(Holds *hs) {
        size_t n = 0, kept = 0;

        for (size_t i = 0; i < hs->n; i++) {
                Hold *h = hs->items[i];

                if (!h->released) {
                        hs->items[kept++] = h;
                        continue;
                }
                log_info("Hold %" PRIu64 " released.", h->info.id);
                hold_free(h);
                n++;
        }
        hs->n = kept;
        return n;
}

/* Below every source of normal priority: the reads, exit records and
 * taskstats news queued when a hold was released are taken first. A flood
 * of reads delays the release, which keeps counting on. */
static int on_release(sd_event_source *s, void *userdata) {
        Holds *hs = userdata;

        if (drop_released(hs) > 0)
                hs->changed(hs, hs->userdata);
        return 0;
}

int holds_new(sd_event *event, holds_changed_t changed, void *userdata, Holds **ret) {
        Holds *hs;
        int r;

        hs = calloc(1, sizeof *hs);
        if (!hs)
                return -ENOMEM;
        *hs = (Holds) { .event = sd_event_ref(event), .changed = changed, .userdata = userdata };
        r = sd_event_add_defer(event, &hs->release, on_release, hs);
        if (r >= 0) {
                (void) sd_event_source_set_description(hs->release, "hold-release");
                r = sd_event_source_set_priority(hs->release, SD_EVENT_PRIORITY_NORMAL + 1);
        }
        if (r >= 0)
                r = sd_event_source_set_enabled(hs->release, SD_EVENT_OFF);
        if (r < 0) {
                holds_free(hs);
                return r;
        }
        *ret = hs;
        return 0;
}

Holds *holds_free(Holds *hs) {
        if (!hs)
                return NULL;
        for (size_t i = 0; i < hs->n; i++)
                hold_free(hs->items[i]);
        free(hs->items);
        sd_event_source_disable_unref(hs->release);
        sd_event_unref(hs->event);
        free(hs);
        return NULL;
}

static int on_expired(sd_event_source *s, uint64_t usec, void *userdata) {
        _cleanup_json_ json_object *r = json_object_new_object();
        Hold *h = userdata;

        /* The call's last reply, so that its caller learns it is over. */
        if (r)
                json_object_object_add(r, "held", json_object_new_boolean(false));
        (void) varlink_reply(h->link, r);
        holds_release(h->set, h->info.id);
        return 0;
}

/* A refused hold: its errno, and the sentence for the caller. */
static int refuse(const char **ret_why, const char *why, int error) {
        *ret_why = why;
        return error;
}

int holds_add(Holds *hs, Varlink *link, const char *reason, usec_t timeout, uint64_t *ret_id,
              const char **ret_why) {
        char who[READER_REF_TEXT_MAX];
        uid_t uid = (uid_t) -1;
        unsigned mine = 0;
        pid_t pid = 0;
        Hold *h, **a;
        int r;

        if (varlink_get_peer_uid(link, &uid) < 0 || varlink_get_peer_pid(link, &pid) < 0)
                return refuse(ret_why, "the caller's credentials are unknown", -EPERM);
        for (size_t i = 0; i < hs->n; i++)
                mine += hs->items[i]->info.owner.uid == uid;
        if (mine >= HOLDS_PER_UID_MAX)
                return refuse(ret_why, "too many holds by this user", -EUSERS);

        h = calloc(1, sizeof *h);
        a = reallocarray(hs->items, hs->n + 1, sizeof *a);
        if (a)
                hs->items = a;
        if (!h || !a) {
                free(h);
                return -ENOMEM;
        }
        *h = (Hold) {
                .set = hs,
                .info = {
                        .id = ++hs->last_id,
                        .reason = reason ? strdup(reason) : NULL,
                        .since = now_usec(CLOCK_REALTIME),
                        .until = timeout ? now_usec(CLOCK_REALTIME) + timeout : 0,
                },
                .link = varlink_ref(link),
        };
        process_describe(pid, uid, &h->info.owner);
        if (timeout) {
                r = sd_event_add_time_relative(hs->event, &h->timer, CLOCK_MONOTONIC, timeout, USEC_PER_MSEC,
                                               on_expired, h);
                if (r < 0) {
                        hold_free(h);
                        return r;
                }
        }
        hs->items[hs->n++] = h;
        log_info("Hold %" PRIu64 " by %s: counting held on%s.", h->info.id,
                 reader_ref_format_who(&h->info.owner, who, sizeof who), timeout ? " for a while" : "");
        *ret_id = h->info.id;
        hs->changed(hs, hs->userdata);
        /* After the change was told: counting on for the hold is dated before it. */
        if (hs->n == 1)
                hs->held_since = now_usec(CLOCK_MONOTONIC);
        return 0;
}

uint64_t holds_of_link(const Holds *hs, const Varlink *link) {
        for (size_t i = 0; hs && i < hs->n; i++)
                if (hs->items[i]->link == link)
                        return hs->items[i]->info.id;
        return 0;
}

void holds_release(Holds *hs, uint64_t id) {
        Hold *h = find(hs, id);

        if (!h)
                return;
        h->released = true;
        h->timer = sd_event_source_disable_unref(h->timer);
        h->link = varlink_unref(h->link);       /* its connection is done with */
        if (hs->stopped || sd_event_source_set_enabled(hs->release, SD_EVENT_ONESHOT) < 0)
                (void) drop_released(hs);       /* nothing more will be taken */
}

void holds_stop(Holds *hs) {
        if (hs)
                hs->stopped = true;
}

size_t holds_count(const Holds *hs) {
        return hs ? hs->n : 0;
}

const HoldInfo *holds_get(const Holds *hs, size_t i) {
        return hs && i < hs->n ? &hs->items[i]->info : NULL;
}

usec_t holds_held_since(const Holds *hs) {
        return hs && hs->n > 0 ? hs->held_since : 0;
}
