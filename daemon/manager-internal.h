/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the manager's files (manager.c, manager-*.c) and test-manager.c
 * share: accessors to the units the manager holds, and each file's entry
 * points. No struct is defined here.
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
#include "best.h"
#include "metrics-file.h"
#include "nodes.h"
#include "topology.h"
#include "hotplug.h"
#include "manager-queue.h"

typedef struct TurnEnd TurnEnd;

/* ---- manager-context.c ----
 * The manager's state is private to manager-context.c, which makes and
 * frees the units it holds and calls no file above it; the other files
 * reach them through these accessors, as kmod's files reach kmod_ctx. */
sd_event *manager_event(const Manager *m);
EventQueue *manager_queue(const Manager *m);
sd_event_source *manager_timer(const Manager *m, ManagerTimer which);
const char *manager_root(const Manager *m);
const Config *manager_config(const Manager *m);
const char *manager_config_path(const Manager *m);
const char *manager_config_error(const Manager *m);     /* the last rejected reload, if any */
uint64_t manager_started(const Manager *m);             /* CLOCK_REALTIME, µs */
pid_t manager_pid(const Manager *m);
KernelMode manager_initial_mode(const Manager *m);      /* found at start-up, for exit_mode=previous */
int64_t manager_realtime_offset(const Manager *m);      /* CLOCK_REALTIME - CLOCK_MONOTONIC at start, µs */
bool manager_shut_down(const Manager *m);               /* manager_shutdown() ran */

Engine *manager_engine(const Manager *m);               /* what decides */
Executor *manager_executor(const Manager *m);           /* the kernel's interface, the runtime directory */
Service *manager_service(const Manager *m);             /* the varlink service, its clients and holds */
TurnEnd *manager_turn(const Manager *m);                /* what this loop turn changed (manager-turn.c) */
KnownCache *manager_known_cache(Manager *m);            /* the catalogue's per-process verdicts */
Sampler *manager_sampler(const Manager *m);
Nodes *manager_nodes(const Manager *m);
MetricsFile *manager_metrics_file(const Manager *m);
BestPlanner *manager_best(const Manager *m);
/* The sources; NULL where one could not be set up. */
ReaderWatch *manager_reader_watch(const Manager *m);
ContainerWatch *manager_containers(const Manager *m);
Exits *manager_exits(const Manager *m);
Inspector *manager_inspector(const Manager *m);
/* Events dispatched so far: whatever changes the status is one. */
uint64_t manager_events_handled(const Manager *m);
void manager_count_event(Manager *m);
Hotplug *manager_hotplug(const Manager *m);
KmsgMonitor *manager_kmsg(const Manager *m);            /* NULL: the kernel's log is not readable here */
bool manager_effective_dry_run(const Manager *m);       /* --dry-run, or the config's */
bool manager_config_must_exist(const Manager *m);       /* named on the command line */
const char *manager_socket_path(const Manager *m);      /* --socket, or the config's */
bool manager_socket_overridden(const Manager *m);

/* Made: the units that need no loop turn (the engine is manager.c's to
 * make, from the setting). Freed: everything it holds but the turn's end. */
int manager_context_new(const ManagerOptions *opts, Config *config, Manager **ret);
void manager_context_free(Manager *m);
static inline void manager_context_freep(Manager **m) {
        manager_context_free(*m);
}
/* The loop's timers, created off (manager-ticks.c, manager-metrics.c,
 * manager-apply.c handle them), and the sources, each NULL if it failed. */
int manager_add_timers(Manager *m);
void manager_new_sources(Manager *m);
/* Queues ev for the dispatch loop (manager-dispatch.c), rather than
 * handling it inside the handler that found it. */
void manager_push(Manager *m, const ManagerEvent *ev);
/* What the life cycle (manager.c) sets. The turn's end is not owned. */
void manager_adopt_engine(Manager *m, Engine *e);
void manager_adopt_service(Manager *m, Service *s);
void manager_set_turn(Manager *m, TurnEnd *t);
void manager_set_initial_mode(Manager *m, KernelMode mode);
void manager_replace_config(Manager *m, Config *c);
void manager_set_config_error(Manager *m, const char *error);
bool manager_begin_shutdown(Manager *m);

/* Used across the manager only. */
static inline BackendKind manager_backend(const Manager *m) {
        return executor_backend(manager_executor(m));
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
int turn_end_new(Manager *m, TurnEnd **ret);
TurnEnd *turn_end_free(TurnEnd *t);
void manager_turn_end(Manager *m);
void manager_turn_end_pending(Manager *m);

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
/* What the kernel logged until now, fed to the engine before what comes next. */
void take_kernel_log(Manager *m);
/* Reads not handled yet: queued, or parked for their exit records. */
bool manager_reads_queued(const Manager *m);

/* ---- manager-dispatch.c: the one dispatch loop ----
 * The sources' callbacks and the manager's timers: each turns what it saw
 * into one event and hands it to the loop, which handles it, then what its
 * handling pushed. */
int on_queue(sd_event_source *s, void *userdata);
int on_timer(sd_event_source *s, uint64_t usec, void *userdata);
void on_exit_named_read(Exits *x, ReadEvent *ev, void *userdata);
void on_kmsg(KmsgMonitor *k, const unsigned counts[_KMSG_NUMA_MAX], void *userdata);
void on_containers_changed(ContainerWatch *w, void *userdata);
void on_hotplug_settled(Hotplug *h, const HotplugSettled *what, void *userdata);
extern const ReaderWatchOps manager_reader_watch_ops;

/* ---- the handlers, one per event (manager-dispatch.c calls them) ---- */
/* manager-reads.c: a read, parked until an exit record names its reader
 * unless it was already; NULL: reads lost. */
void manager_handle_read(Manager *m, ReadEvent *ev, bool parked);
/* A read that waited for a look into its process: pending (past the
 * read's patience), the read is handled now, counting, and the look goes
 * on; else the answer is kept and, if not handled yet, the read is
 * handled by it; r freed. */
void manager_handle_inspected(Manager *m, InspectedRead *r, bool pending);
void inspected_read_answered(InspectedRead *r, InspectOutcome outcome, const void *answer);
void inspected_read_free(void *r);
void on_inspected(Inspector *in, InspectOutcome outcome, const void *answer, int *fds, size_t n_fds, void *token,
                  void *userdata);
/* manager-apply.c */
void manager_handle_kernel_log(Manager *m, const unsigned counts[_KMSG_NUMA_MAX]);
void manager_handle_trigger_settled(Manager *m);
int manager_handle_set_policy(Manager *m, Policy policy, int dry_run);
/* manager-sources.c */
void manager_readers_changed(Manager *m);
void manager_handle_readers_retried(Manager *m);
void manager_containers_changed(Manager *m);
void manager_handle_hotplug(Manager *m, const HotplugSettled *what);
/* manager-ticks.c: usec, the time the sample was set for */
void manager_handle_sample(Manager *m, uint64_t usec);
void manager_handle_armed_sample(Manager *m);
/* manager-metrics.c */
void manager_handle_metrics_due(Manager *m);
void manager_handle_best_due(Manager *m);
/* manager-holds.c */
void manager_handle_holds_changed(Manager *m, const Holds *holds);
/* manager-reload.c */
int manager_handle_reload(Manager *m, char **ret_error);

/* manager-sources.c */
void manager_resolve_rules(Manager *m);
void manager_rejudge_readers(Manager *m);
unsigned rules_fields(const Config *c);
int manager_watch(Manager *m);
void manager_scan_containers(Manager *m);
/* How often containers are scanned now: none without reader detection. */
usec_t manager_scan_period(const Manager *m);

/* manager-metrics.c */
void manager_metrics_remove(Manager *m);
void manager_schedule_metrics(Manager *m, bool now);

