/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's context: everything mutable lives here, nowhere else.
 *
 * State flows one way: sources (reads, rate samples, uevents, the kernel's
 * mode) feed the policy engine; its Decision drives the kernel; status.c
 * builds the one snapshot every output reads. Each fact is kept once:
 * whether the kernel counts is derived from its mode, whether a decision
 * was made lives in the engine, the last reader is the engine's. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "backend.h"
#include "conf.h"
#include "containers.h"
#include "mountwatch.h"
#include "carry.h"
#include "counters.h"
#include "history.h"
#include "hold.h"
#include "kernel-state.h"
#include "kmsg.h"
#include "parsers.h"
#include "policy.h"
#include "readers.h"
#include "known-probe.h"
#include "readertab.h"
#include "socket-file.h"
#include "status.h"
#include "taskstats.h"
#include "textfile.h"
#include "topology.h"
#include "uevent.h"
#include "varlink-client.h"
#include "varlink-server.h"

#define DEFAULT_RUNTIME_DIR "/run/numastatd"

/* The runtime directory: the option's, else systemd's RUNTIME_DIRECTORY=
 * (the first, if several), else DEFAULT_RUNTIME_DIR. malloc'd. */
char *manager_runtime_dir(const char *option);

typedef struct ManagerOptions {
        const char *root;               /* NULL: "/" */
        const char *config_path;        /* NULL: the default, which may be absent */
        const char *socket_path;        /* NULL: the config's */
        const char *runtime_dir;        /* NULL: $RUNTIME_DIRECTORY (systemd), else /run/numastatd */
        bool dry_run;                   /* --dry-run */
} ManagerOptions;

/* A read whose reader had exited, waiting for its exit record. */
#define PARKED_MAX 64
typedef struct ParkedRead {
        pid_t pid;
        usec_t since;           /* CLOCK_MONOTONIC, when the event was handled */
        char *path;
        char *comm;             /* what /proc still showed (a zombie's comm), or NULL */
        bool has_uid;
        uid_t uid;
} ParkedRead;

/* Reader detection: the fanotify source, and its retry when it fails
 * (manager-sources.c). */
typedef struct ReaderWatch {
        Readers *source;                /* NULL: reader detection unavailable (or died) */
        char *error;
        usec_t backoff;                 /* the next retry's delay after a failure */
        uint64_t retry_at;              /* CLOCK_REALTIME µs, for status; 0: no retry pending */
        sd_event_source *timer;
} ReaderWatch;

/* The topology and the counters' precision, re-read after hotplug
 * (manager-sources.c). */
typedef struct Hotplug {
        Topology topology;
        uint64_t changes;               /* uevents about CPUs, memory, nodes */
        uint64_t reloads;
        uint64_t changed_at;            /* CLOCK_REALTIME µs, 0: never */
        bool nodes_changed;             /* a node uevent since the last reload: re-mark files */
        bool cpus_changed;              /* a CPU uevent since the last reload: re-read precision */
        sd_event_source *timer;
        ZoneThreshold *zones;           /* counter precision, from /proc/zoneinfo */
        size_t n_zones;
        bool zones_stale;               /* CPUs changed while we could not read zoneinfo */
        UeventMonitor *uevents;
        char *uevents_error;
} Hotplug;

/* What the patched kernel's auto is doing, as its log and our samples tell
 * (manager-apply.c, manager-reads.c, manager-sample.c). */
typedef struct KernelAuto {
        KmsgMonitor *kmsg;              /* NULL: the kernel's log is not readable here */
        bool trigger_pending;           /* the log said "on read"; no read event has claimed it yet */
        sd_event_source *trigger_timer; /* ...until TRIGGER_SETTLE_USEC after */
        bool sampling;                  /* our own armed sample is reading */
        bool sample_triggered;          /* ...and the log said it triggered */
        sd_event_source *armed_timer;   /* the next armed sample */
        bool arm_deferred;              /* arming waits for queued read events */
        bool have_deferred;
        Decision deferred;              /* ...and the decision that wanted it, for the record */
        uint64_t arms;                  /* every arm (coarse, then auto) */
        uint64_t rearms;                /* arms of a triggered auto */
        uint64_t armed_samples;
        uint64_t triggers;              /* reads that turned an armed auto on (not our samples) */
} KernelAuto;

/* Readers gone before we looked, named from their exit records (see
 * manager_park(), manager-reads.c). */
typedef struct ExitNaming {
        Taskstats *taskstats;           /* NULL: off, or unavailable */
        char *error;                    /* why unavailable, if it is */
        ParkedRead parked[PARKED_MAX];  /* oldest first */
        size_t n_parked;
        bool resolving;                 /* manager_resolve_parked() runs */
        sd_event_source *timer;
        uint64_t named;                 /* parked reads named by their exit record */
        uint64_t missed;                /* ...whose record did not come in time */
} ExitNaming;

/* Containers' own procfs instances, marked through /proc/PID/root (see
 * containers.h); scanned every [readers] container_scan, and on mount
 * events (manager-sources.c). */
typedef struct ContainerWatch {
        ProcInstances instances;
        sd_event_source *timer;
        uint64_t scans;
        usec_t cost;                    /* the last scan's duration */
        uint64_t scanned_at;            /* CLOCK_REALTIME µs; 0: never */
        MountWatch *mounts;             /* mount events in known namespaces (6.14+); NULL: unavailable */
        char *mounts_error;
        bool for_mount;                 /* the next scan is a mount event's */
        usec_t burst_since;             /* CLOCK_MONOTONIC: its burst's first event */
} ContainerWatch;

/* [metrics] textfile: the metrics for node_exporter's textfile collector,
 * rewritten every interval when they changed (manager-metrics.c). */
typedef struct MetricsFile {
        sd_event_source *timer;
        char *last;                     /* the text written last */
        char *path;                     /* ...where */
        TextfileId written;             /* ...and the file, for removing it at stop */
        uint64_t written_at;            /* CLOCK_REALTIME µs; 0: never */
        char *error;
} MetricsFile;

/* The allocation rate and the continuous counters (manager-sample.c). */
typedef struct Counts {
        RateMeter rate;
        char *rate_error;               /* why there is no allocation rate, if known */
        uint64_t samples;               /* readings of the statistics files */
        CounterTrack vmstat;
        NodeTrack *nodes;
        size_t n_nodes;
        CarryState carried;             /* the previous daemon's counters, to continue from */
        usec_t carry_saved_at;          /* CLOCK_MONOTONIC: the last save of ours */
        char boot_id[40];               /* this boot's, "" if unknown: carried counters are per boot */
        uint64_t resets;                /* resets we caused and compensated */
        uint64_t external_resets;       /* resets found in the readings */
        OnTime on_time;
        Ledger ledger;                  /* pages allocated with counting on and off */
} Counts;

/* Who is connected: the socket, Monitor subscribers, holds (service.c,
 * manager-holds.c). */
typedef struct Clients {
        VarlinkServer *varlink;
        SocketFile socket_file;         /* the socket file we bound ourselves, if any */
        Varlink **monitors;
        size_t n_monitors;
        Hold **holds;                   /* oldest first */
        size_t n_holds;
        uint64_t hold_ids;
        uint64_t fingerprint;           /* status_fingerprint() last announced (STATUS=, Monitor) */
} Clients;

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
        Cause policy_source;    /* STARTUP (the config at start), RELOAD, OPERATOR */
        bool dry_run;

        BackendKind backend;
        KernelState kernel;             /* the mode as last read back, and an auto's armed/triggered */
        KernelMode initial_mode;        /* found at start-up, for exit_mode=previous */
        int64_t realtime_offset;        /* CLOCK_REALTIME - CLOCK_MONOTONIC at start, µs */
        bool wrote_kernel;              /* we changed the kernel at least once */
        PolicyState engine;
        Decision decision;              /* the engine's last answer */
        ErrorRecord last_error;

        History history;
        ReaderWatch watch;
        ReaderTable readertab;
        KnownCache known_cache;         /* the catalogue's per-process verdicts */
        Hotplug hotplug;
        KernelAuto kauto;
        ExitNaming exits;
        ContainerWatch containers;
        MetricsFile metrics;
        Counts counts;
        sd_event_source *sample_timer;
        sd_event_source *deadline_timer;

        char *runtime_dir;      /* where the crash-restore state lives */
        int runtime_fd;         /* ...opened and checked; -1: crash safety off */
        char *runtime_error;    /* why it is off, if it is */

        Clients clients;

        bool shut_down;         /* manager_shutdown() ran */
        uint64_t started;       /* CLOCK_REALTIME, µs */
} Manager;

/* Takes over *config (left zeroed). */
int manager_new(const ManagerOptions *opts, Config *config, Manager **ret);
/* Shuts down if that has not happened, then frees. */
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m) {
        manager_free(*m);
}

/* Detects the backend, reads the topology, starts the sources, opens the socket. */
int manager_start(Manager *m);
/* Runs the event loop until a signal, a failing source or an internal
 * error ends it, then shuts down (manager_shutdown()). Returns the loop's
 * error, or the restore's. */
int manager_run(Manager *m);
/* The one exit path, run once whatever ended the loop: STOPPING=1, the
 * kernel left in exit_mode, the crash-restore state removed once restored,
 * the socket closed and unlinked, every client disconnected. */
int manager_shutdown(Manager *m);

/* Checks the kernel for outside changes, decides and, unless in dry run,
 * drives the kernel. Returns the write's error, which is also logged and
 * kept in status. */
int manager_apply(Manager *m);
/* Reloads the config file. A bad file keeps the running config; the error
 * is returned (*ret_error set) and shown in status. */
int manager_reload(Manager *m, char **ret_error);
/* The operator's runtime choice, until the next reload. */
int manager_set_policy(Manager *m, Policy policy, int dry_run /* <0: unchanged */);

/* How often containers' procfs instances are looked for: container_scan
 * when set; unset, every minute on "/" and never under --root=DIR (a tree
 * whose files containers do not read, where scanning the real /proc
 * would only watch files that are not the tree's). 0: never. */
usec_t manager_container_scan(const Manager *m);

/* The engine's configuration, from the config and the operator's choices. */
void manager_policy_config(const Manager *m, PolicyConfig *pc);
/* Whether the kernel counts now, from its mode. */
bool manager_counting(const Manager *m);
/* A caller wants the counters as of now (GetCounters): samples if it may.
 * Returns whether the counters are current (read now, or frozen since). */
bool manager_sample_for_caller(Manager *m);

/* A hold for the caller on link (see Hold). Refuses, with a negative errno
 * and a sentence, what cannot be kept: no kernel interface, dry run, a
 * pause, policy coarse, or HOLDS_PER_UID_MAX holds of this uid already.
 * Returns 1 when the kernel reads back counting on, 0 when the hold is in
 * force but the write failed (in status). timeout 0: while connected. */
int manager_hold_add(Manager *m, Varlink *link, const char *reason, usec_t timeout, Hold **ret,
                     const char **ret_why);
/* Ends it (the connection closed, or it expired) and frees it. */
void manager_hold_remove(Manager *m, Hold *h);
Hold *manager_hold_by_link(Manager *m, Varlink *link);
