/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the manager's files (manager.c, manager-*.c) share with one another,
 * and nothing else uses. Events are stamped with the clock itself, not
 * sd_event_now(): events handled in one loop turn must keep their order (a
 * read handled after a switch is after it). */

#include "manager.h"

/* journalctl MESSAGE_ID=9047bd2c736f496ba83969e626bf4f84 lists every switch. */
#define NUMASTATD_MESSAGE_TRANSITION "9047bd2c736f496ba83969e626bf4f84"

/* Bursts of uevents (a memory block comes online as dozens) are one
 * topology reload, this long after the first. */
#define TOPOLOGY_SETTLE_USEC (100 * USEC_PER_MSEC)
/* Reader detection that died is re-created after 1 s, doubling to 5 min. */
#define READERS_RETRY_MIN_USEC (1 * USEC_PER_SEC)
#define READERS_RETRY_MAX_USEC (5 * 60 * USEC_PER_SEC)
/* A trigger the kernel logged waits this long for the read event that
 * names its reader, before it is put down to a reader no watch saw. */
#define TRIGGER_SETTLE_USEC (50 * USEC_PER_MSEC)

/* Reads parked for their exit record (manager-reads.c). */
#define PARK_DEADLINE_USEC (50 * USEC_PER_MSEC)         /* records come 50 µs to 20 ms after the read */
#define PARK_POLL_USEC (2 * USEC_PER_MSEC)
#define PARK_LOOKBACK_USEC USEC_PER_SEC                 /* a record received before the event was handled */
/* The carried counters are saved at most this often (manager-sample.c). */
#define CARRY_SAVE_USEC USEC_PER_SEC
/* Container scans (manager-sources.c). */
#define MOUNT_SETTLE_USEC (100 * USEC_PER_MSEC)         /* a container's mounts come in a burst */
#define MOUNT_SCAN_DEADLINE_USEC (500 * USEC_PER_MSEC)  /* ...but a burst delays the scan no longer */
#define CONTAINER_SCAN_DEFAULT (60 * USEC_PER_SEC)      /* see manager_container_scan() */

/* What manager_decide() did, for manager_commit() to record. */
typedef struct Step {
        usec_t now;
        KernelState from, to;
        bool record;            /* a transition to record */
        TransitionKind kind;    /* POLICY (written) or DRY_RUN (would have) */
} Step;

/* Used across the manager only. */
/* Leaves the kernel in the configured exit mode. */
int manager_restore(Manager *m);
/* Reading a statistics file is harmless now (not a patched kernel in
 * "auto", where any read turns counting on). */
bool manager_may_read_stats(const Manager *m);
/* Something status shows may have changed: if it did (status_fingerprint()),
 * tell Monitor clients and systemd. */
void manager_state_changed(Manager *m);

/* manager.c */
void timer_at(sd_event_source *s, usec_t when);
void manager_set_mode(Manager *m, KernelMode mode);
void manager_update_expected(Manager *m, usec_t now);

/* manager-record.c */
void manager_record_transition(Manager *m, const KernelState *from, const KernelState *to, TransitionKind kind,
        Cause cause, const ReaderRef *reader, const char *reason, const char *reason_redacted);
void manager_set_error(Manager *m, int error, char **message);
void manager_clear_error(Manager *m);
_printf_(3, 4) void set_source_error(char **slot, int error, const char *fmt, ...);

/* manager-sample.c */
void manager_carry_save(Manager *m, bool now);
void manager_sample(Manager *m, bool reset);
void manager_refresh_zones(Manager *m);
int on_sample(sd_event_source *s, uint64_t usec, void *userdata);
int on_armed_sample(sd_event_source *s, uint64_t usec, void *userdata);
void manager_schedule_armed_sampling(Manager *m, usec_t now);
int on_deadline(sd_event_source *s, uint64_t usec, void *userdata);
void manager_schedule_sampling(Manager *m);
void manager_load_carried(Manager *m);

/* manager-holds.c */
void hold_free(Hold *h);

/* manager-apply.c */
void manager_save_restore_state(Manager *m);
void manager_schedule_deadline(Manager *m);
int manager_decide(Manager *m, Step *step);
void manager_counting_changed(Manager *m, usec_t now);
void manager_commit(Manager *m, const Step *step);
int on_trigger_settled(sd_event_source *s, uint64_t usec, void *userdata);
void on_kmsg(KmsgMonitor *k, KmsgNuma what, void *userdata);

/* manager-reads.c */
bool read_triggered(Manager *m);
void manager_triggered(Manager *m, const KernelState *from, Cause cause, const ReaderRef *reader, bool confirmed);
void parked_read_free(ParkedRead *p);
void manager_resolve_parked(Manager *m);
int on_park_timer(sd_event_source *s, uint64_t usec, void *userdata);
void on_task_exits(Taskstats *t, void *userdata);
void on_read(Readers *readers, ReadEvent *ev, void *userdata);

/* manager-sources.c */
void manager_resolve_rules(Manager *m);
unsigned rules_fields(const Config *c);
int manager_watch(Manager *m);
int on_readers_retry(sd_event_source *s, uint64_t usec, void *userdata);
int on_topology_settled(sd_event_source *s, uint64_t usec, void *userdata);
void manager_scan_containers(Manager *m);
int on_scan_timer(sd_event_source *s, uint64_t usec, void *userdata);
void manager_schedule_scan(Manager *m);
void manager_start_taskstats(Manager *m);
void manager_stop_taskstats(Manager *m);
void manager_start_sources(Manager *m);

/* manager-metrics.c */
void manager_metrics_remove(Manager *m);
int on_metrics_timer(sd_event_source *s, uint64_t usec, void *userdata);
void manager_schedule_metrics(Manager *m, bool now);

