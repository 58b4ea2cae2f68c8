/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's context: everything mutable lives here, nowhere else. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "backend.h"
#include "conf.h"
#include "counters.h"
#include "parsers.h"
#include "policy.h"
#include "readers.h"
#include "readertab.h"
#include "topology.h"
#include "uevent.h"
#include "varlink-client.h"
#include "varlink-server.h"

#define TRANSITIONS_MAX 64

/* journalctl MESSAGE_ID=9047bd2c736f496ba83969e626bf4f84 lists every switch. */
#define NUMASTATD_MESSAGE_TRANSITION "9047bd2c736f496ba83969e626bf4f84"

typedef enum TransitionKind {
        TRANSITION_POLICY,      /* we switched */
        TRANSITION_DRY_RUN,     /* we would have switched */
        TRANSITION_EXTERNAL,    /* someone else switched */
        TRANSITION_EXIT,        /* we restored exit_mode on the way out */
        _TRANSITION_KIND_MAX,
} TransitionKind;

const char *transition_kind_to_string(TransitionKind k);

typedef struct Transition {
        uint64_t time;          /* CLOCK_REALTIME, µs */
        KernelMode from, to;
        Policy policy;
        TransitionKind kind;
        char *reason;
} Transition;

typedef struct ManagerError {
        uint64_t time;
        int error;              /* positive errno */
        char *message;
} ManagerError;

typedef struct ManagerOptions {
        const char *root;               /* NULL: "/" */
        const char *config_path;        /* NULL: the default, which may be absent */
        const char *socket_path;        /* NULL: the config's */
        bool dry_run;                   /* --dry-run */
} ManagerOptions;

typedef struct NodeTrack {
        int id;
        CounterTrack track;
} NodeTrack;

typedef struct Manager {
        sd_event *event;

        char *root;
        char *config_path;
        bool config_must_exist;
        char *socket_override;
        bool dry_run_override;

        Config config;
        char *config_error;     /* the last rejected reload, if any */

        Policy policy;          /* in force: the config's, or SetPolicy's */
        bool policy_from_client;
        bool dry_run;

        BackendKind backend;
        KernelMode kernel_mode;         /* as last read back */
        KernelMode initial_mode;        /* found at start-up, for exit_mode=previous */
        bool wrote_kernel;              /* we changed the kernel at least once */
        PolicyState engine;
        Decision decision;
        bool have_decision;
        ManagerError last_error;

        Topology topology;
        uint64_t topology_changes;
        uint64_t topology_changed_at;   /* CLOCK_REALTIME µs, 0: never */
        ZoneThreshold *zones;           /* counter precision, from /proc/zoneinfo */
        size_t n_zones;
        bool zones_stale;               /* CPUs changed while we could not read zoneinfo */

        Readers *readers;               /* NULL: reader detection unavailable */
        char *readers_error;
        ReaderTable readertab;
        struct {                        /* the last counted reader, for the journal */
                pid_t pid;
                char comm[32];
                char unit[128];
        } last_reader;
        UeventMonitor *uevents;
        char *uevents_error;

        RateMeter rate;
        char *rate_error;               /* why there is no allocation rate, if known */
        CounterTrack vmstat_track;
        NodeTrack *node_tracks;
        size_t n_node_tracks;
        uint64_t counter_resets;        /* resets we caused and compensated */
        uint64_t external_resets;       /* resets found in the readings */
        OnTime on_time;

        sd_event_source *sample_timer;
        sd_event_source *deadline_timer;

        Transition transitions[TRANSITIONS_MAX];        /* ring, oldest at transitions_first */
        size_t transitions_first, n_transitions;
        uint64_t transitions_total;

        char *restore_path;     /* crash-safety state beside the socket */

        VarlinkServer *varlink;
        char *bound_socket;     /* a path we bound ourselves and unlink at exit */
        Varlink **monitors;
        size_t n_monitors;
        char *last_status_sent; /* Monitor sends only when this changes */

        uint64_t started;       /* CLOCK_REALTIME, µs */
} Manager;

/* Takes over *config (left zeroed). */
int manager_new(const ManagerOptions *opts, Config *config, Manager **ret);
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m) {
        manager_free(*m);
}

/* Detects the backend, reads the topology, starts the sources, opens the socket. */
int manager_start(Manager *m);
/* Checks the kernel for outside changes, decides and, unless in dry run,
 * drives the kernel. Returns the write's error, which is also logged and
 * kept in status. */
int manager_apply(Manager *m);
/* Reloads the config file. A bad file keeps the running config; the error
 * is returned (*ret_error set) and shown in status. */
int manager_reload(Manager *m, char **ret_error);
/* The operator's runtime choice, until the next reload. */
int manager_set_policy(Manager *m, Policy policy, int dry_run /* <0: unchanged */);
/* Leaves the kernel in the configured exit mode. */
int manager_restore(Manager *m);
int manager_run(Manager *m);

/* The transition at index i, oldest first, i < n_transitions. */
const Transition *manager_transition(const Manager *m, size_t i);
/* Counters counted since start: total (from /proc/vmstat) and per node. */
void manager_counters_total(const Manager *m, NumaCounters *ret);
/* Reading a statistics file is harmless now (not a patched kernel in
 * "auto", where any read turns counting on). */
bool manager_may_read_stats(const Manager *m);
/* Something status shows changed: tell Monitor clients and systemd. */
void manager_state_changed(Manager *m);
