/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Holds: counting kept on for a client while its connection lasts, or until
 * its timeout. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manager.h"
#include "manager-private.h"
#include "service.h"
#include "time-util.h"

static void manager_holds_changed(Manager *m) {
        const Hold *h = m->clients.n_holds > 0 ? m->clients.holds[0] : NULL;

        policy_set_holds(&m->engine, (unsigned) m->clients.n_holds, h ? &h->owner : NULL, h ? h->reason : NULL);
        (void) manager_apply(m);
}

void hold_free(Hold *h) {
        if (!h)
                return;
        sd_event_source_disable_unref(h->timer);
        varlink_unref(h->link);
        free(h->reason);
        free(h);
}

static int on_hold_expired(sd_event_source *s, uint64_t usec, void *userdata) {
        Hold *h = userdata;

        service_hold_expired(h->link);
        manager_hold_remove(h->manager, h);
        return 0;
}

Hold *manager_hold_by_link(Manager *m, Varlink *link) {
        for (size_t i = 0; i < m->clients.n_holds; i++)
                if (m->clients.holds[i]->link == link)
                        return m->clients.holds[i];
        return NULL;
}

/* A refused hold: its errno, and the sentence for the caller. */
static int refuse(const char **ret_why, const char *why, int error) {
        *ret_why = why;
        return error;
}

int manager_hold_add(Manager *m, Varlink *link, const char *reason, usec_t timeout, Hold **ret,
                     const char **ret_why) {
        Hold *h, **a;
        uid_t uid = (uid_t) -1;
        pid_t pid = 0;
        unsigned mine = 0;
        int r;

        if (m->backend == BACKEND_NONE)
                return refuse(ret_why, "this kernel has no interface for NUMA statistics", -EOPNOTSUPP);
        if (m->dry_run)
                return refuse(ret_why, "the daemon runs in dry-run mode and writes nothing", -EOPNOTSUPP);
        if (policy_paused(&m->engine))
                return refuse(ret_why, "paused after someone else changed the mode: numastatctl set-policy resumes",
                              -EBUSY);
        if (m->policy_in_force == POLICY_COARSE)
                return refuse(ret_why, "policy coarse: counting stays off (an administrator may set-policy auto)",
                              -EPERM);
        if (varlink_get_peer_uid(link, &uid) < 0 || varlink_get_peer_pid(link, &pid) < 0)
                return refuse(ret_why, "the caller's credentials are unknown", -EPERM);
        for (size_t i = 0; i < m->clients.n_holds; i++)
                mine += m->clients.holds[i]->owner.uid == uid;
        if (mine >= HOLDS_PER_UID_MAX)
                return refuse(ret_why, "too many holds by this user", -EUSERS);

        h = calloc(1, sizeof *h);
        a = reallocarray(m->clients.holds, m->clients.n_holds + 1, sizeof *a);
        if (!h || !a) {
                free(h);
                if (a)
                        m->clients.holds = a;
                return -ENOMEM;
        }
        m->clients.holds = a;
        *h = (Hold) {
                .manager = m,
                .id = ++m->clients.hold_ids,
                .link = varlink_ref(link),
                .reason = reason ? strdup(reason) : NULL,
                .since = now_usec(CLOCK_REALTIME),
                .until = timeout ? now_usec(CLOCK_REALTIME) + timeout : 0,
        };
        process_describe(pid, uid, &h->owner);
        if (timeout) {
                r = sd_event_add_time_relative(m->event, &h->timer, CLOCK_MONOTONIC, timeout, USEC_PER_MSEC,
                                               on_hold_expired, h);
                if (r < 0) {
                        hold_free(h);
                        return r;
                }
        }
        m->clients.holds[m->clients.n_holds++] = h;
        {
                char who[READER_REF_TEXT_MAX];
                log_info("Hold %" PRIu64 " by %s: counting held on%s.", h->id,
                         reader_ref_format_who(&h->owner, who, sizeof who), timeout ? " for a while" : "");
        }
        manager_holds_changed(m);
        /* After the apply: counting on for the hold is dated before it. */
        if (m->clients.n_holds == 1)
                m->clients.held_since = now_usec(CLOCK_MONOTONIC);
        *ret = h;
        return manager_counting(m) ? 1 : 0;
}

/* Drops the released holds; returns how many. */
static size_t drop_released(Manager *m) {
        size_t n = 0, kept = 0;

        for (size_t i = 0; i < m->clients.n_holds; i++) {
                Hold *h = m->clients.holds[i];

                if (!h->released) {
                        m->clients.holds[kept++] = h;
                        continue;
                }
                log_info("Hold %" PRIu64 " released.", h->id);
                hold_free(h);
                n++;
        }
        m->clients.n_holds = kept;
        return n;
}

/* Below every source of normal priority (manager.c sets it up): reads,
 * exit records and the taskstats news queued when a hold was released are
 * taken first. A flood of reads delays the release, which keeps counting on. */
int on_hold_release(sd_event_source *s, void *userdata) {
        Manager *m = userdata;

        if (drop_released(m) > 0)
                manager_holds_changed(m);
        return 0;
}

/* A hold ends once the loop has taken what was queued before its end:
 * the held command's last read usually comes just before its exit, and
 * is the hold's. No other source is drained here. */
void manager_hold_remove(Manager *m, Hold *h) {
        h->released = true;
        h->timer = sd_event_source_disable_unref(h->timer);
        h->link = varlink_unref(h->link);       /* its connection is done with */
        if (m->shut_down || sd_event_source_set_enabled(m->clients.hold_release, SD_EVENT_ONESHOT) < 0)
                (void) drop_released(m);        /* nothing more will be taken */
}
