/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The manager's state, and what its files (manager.c, manager-*.c) share
 * with one another, and test-manager.c: one object across these files,
 * still to be split into units that keep their state private.
 *
 * Events are stamped with the clock itself, not sd_event_now(): events
 * handled in one loop turn must keep their order (a read handled after a
 * switch is after it). */

#include "manager.h"

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "engine.h"
#include "event-util.h"
#include "executor.h"
#include "exits.h"
#include "conf.h"
#include "container-watch.h"
#include "carry.h"
#include "sampler.h"
#include "counters.h"
#include "history.h"
#include "kernel-state.h"
#include "kmsg.h"
#include "parsers.h"
#include "policy.h"
#include "readers.h"
#include "reader-watch.h"
#include "known-probe.h"
#include "readertab.h"
#include "service.h"
#include "status.h"
#include "metrics-file.h"
#include "nodes.h"
#include "topology.h"
#include "hotplug.h"

/* The patched kernel's auto, as its log and our samples tell it; what it
 * means is the engine's (manager-apply.c, manager-sample.c). */
typedef struct KernelAuto {
        KmsgMonitor *kmsg;              /* NULL: the kernel's log is not readable here */
        sd_event_source *trigger_timer; /* a logged trigger waits for its read until then */
        sd_event_source *armed_timer;   /* the next armed sample */
} KernelAuto;

/* What this loop turn's handler changed, settled at its end (manager-turn.c). */
typedef struct TurnEnd {
        sd_event_source *source;
        bool status;                    /* announce the status */
        bool deadline;                  /* compute the deadline again */
        bool deadline_now;              /* ...or set it for now: off waits for queued reads */
        uint64_t announced;             /* status_fingerprint() last announced (STATUS=, Monitor) */
} TurnEnd;

typedef struct Manager {
        sd_event *event;
        TurnEnd turn;

        char *root;
        char *config_path;
        bool config_must_exist;
        char *socket_override;
        bool dry_run_override;

        Config config;
        char *config_error;     /* the last rejected reload, if any */

        Engine *engine;         /* what decides: the policy in force, the kernel as known, the decision */
        KernelMode initial_mode;        /* found at start-up, for exit_mode=previous */
        int64_t realtime_offset;        /* CLOCK_REALTIME - CLOCK_MONOTONIC at start, µs */

        ReaderWatch *watch;             /* reader detection, kept alive (manager-sources.c) */
        KnownCache known_cache;         /* the catalogue's per-process verdicts */
        Nodes *nodes;                   /* the topology and the counters' precision, as last read */
        Hotplug *hotplug;               /* uevents, told once per burst (manager-sources.c) */
        KernelAuto kauto;
        Exits *exits;                   /* reads parked until an exit record names their reader */
        ContainerWatch *containers;     /* containers' procfs instances (manager-sources.c) */
        MetricsFile *metrics;           /* [metrics] textfile (manager-metrics.c) */
        sd_event_source *metrics_timer;
        Sampler *sampler;               /* the samples, and the counters followed (manager-sample.c) */
        sd_event_source *sample_timer;
        sd_event_source *deadline_timer;

        Executor *executor;     /* the kernel's interface, the runtime directory, the last error */

        Service *service;               /* the varlink service, its clients and holds */

        bool shut_down;         /* manager_shutdown() ran */
        uint64_t started;       /* CLOCK_REALTIME, µs */
} Manager;

/* journalctl MESSAGE_ID=9047bd2c736f496ba83969e626bf4f84 lists every switch. */
#define NUMASTATD_MESSAGE_TRANSITION "9047bd2c736f496ba83969e626bf4f84"

/* Used across the manager only. */
static inline BackendKind manager_backend(const Manager *m) {
        return executor_backend(m->executor);
}
/* The mode a crash or a stop leaves the kernel in (exit_mode). */
KernelMode manager_exit_mode(const Manager *m);
/* Leaves the kernel in the configured exit mode. */
int manager_restore(Manager *m);
/* At the end of this loop turn (manager-turn.c): the status is announced
 * to Monitor clients and systemd if it changed (status_fingerprint()), the
 * deadline computed again, or set for now (off waits for queued reads). */
void manager_state_changed(Manager *m);
void manager_schedule_deadline(Manager *m);
void manager_deadline_now(Manager *m);
int manager_add_turn_end(Manager *m);
void manager_turn_end(Manager *m);
void manager_turn_end_pending(Manager *m);
void manager_announce_now(Manager *m);

/* manager-record.c: a transition the engine recorded, in the journal. */
void manager_journal_transition(const Transition *t);

/* manager-sample.c */
void manager_carry_save(Manager *m, bool now);
void manager_sample(Manager *m, bool reset);
void manager_refresh_zones(Manager *m);
void manager_schedule_sampling(Manager *m);
void manager_load_carried(Manager *m);

/* manager-apply.c */
/* Feeds the engine one event at now and does what it asks
 * (manager_effects()). Returns the first failed write's error. */
int manager_feed(Manager *m, const EngineEvent *ev, usec_t now);
/* What the last sample found, if the engine has not heard it. */
void manager_hear_sample(Manager *m);
/* engine_feed(), stamped with the wall clock's time (what a transition is
 * recorded at); the effects are the caller's to do. */
void manager_engine_feed(Manager *m, const EngineEvent *ev, usec_t now, EngineEffects *fx);
int manager_effects(Manager *m, EngineEffects *fx, usec_t now);
/* Reads the kernel back and has the engine decide at now (CLOCK_MONOTONIC
 * µs; a read's own, so that the switch it causes is dated at the read). */
int manager_decide(Manager *m, usec_t now);
/* The kernel's mode as read back, taken as it is. */
void manager_set_mode(Manager *m, KernelMode mode);
/* The engine's view of the setting, and that view told again. */
void manager_engine_config(const Manager *m, EngineConfig *ret);
void manager_configure_engine(Manager *m);
int on_trigger_settled(sd_event_source *s, uint64_t usec, void *userdata);
void on_kmsg(KmsgMonitor *k, const unsigned counts[_KMSG_NUMA_MAX], void *userdata);
/* What the kernel logged until now, fed to the engine before what comes next. */
void take_kernel_log(Manager *m);

/* manager-reads.c */
void on_exit_named_read(Exits *x, ReadEvent *ev, void *userdata);
void on_read(Readers *readers, ReadEvent *ev, void *userdata);

/* manager-sources.c */
void manager_resolve_rules(Manager *m);
void manager_rejudge_readers(Manager *m);
unsigned rules_fields(const Config *c);
int manager_watch(Manager *m);
void manager_scan_containers(Manager *m);
/* How often containers are scanned now: none without reader detection. */
usec_t manager_scan_period(const Manager *m);
void manager_start_sources(Manager *m);

/* manager-ticks.c */
int on_sample(sd_event_source *s, uint64_t usec, void *userdata);
int on_armed_sample(sd_event_source *s, uint64_t usec, void *userdata);
int on_deadline(sd_event_source *s, uint64_t usec, void *userdata);

/* manager-metrics.c */
void manager_metrics_remove(Manager *m);
int on_metrics_timer(sd_event_source *s, uint64_t usec, void *userdata);
void manager_schedule_metrics(Manager *m, bool now);

