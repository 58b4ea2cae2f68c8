/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the manager's files (manager.c, manager-*.c) share with one another,
 * and nothing else uses. Events are stamped with the clock itself, not
 * sd_event_now(): events handled in one loop turn must keep their order (a
 * read handled after a switch is after it). */

#include "manager.h"

/* What manager_decide() did, for manager_commit() to record. */
typedef struct Step {
        usec_t now;
        KernelState from, to;
        bool record;            /* a transition to record */
        TransitionKind kind;    /* POLICY (written) or DRY_RUN (would have) */
} Step;

/* manager.c */
void timer_at(sd_event_source *s, usec_t when);
bool backend_is_patched(BackendKind b);
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
void manager_arm_armed_sampling(Manager *m, usec_t now);
int on_deadline(sd_event_source *s, uint64_t usec, void *userdata);
void manager_arm_sampling(Manager *m);
void manager_load_carried(Manager *m);

/* manager-holds.c */
void hold_free(Hold *h);

/* manager-apply.c */
void manager_save_restore_state(Manager *m);
void manager_arm_deadline(Manager *m);
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
void manager_arm_scan(Manager *m);
void manager_start_taskstats(Manager *m);
void manager_stop_taskstats(Manager *m);
void manager_start_sources(Manager *m);

/* manager-metrics.c */
void manager_metrics_remove(Manager *m);
int on_metrics_timer(sd_event_source *s, uint64_t usec, void *userdata);
void manager_arm_metrics(Manager *m, bool now);

