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
#define PARK_DEADLINE_USEC (50 * USEC_PER_MSEC)  /* records come 50 µs to 20 ms after the read */
#define PARK_POLL_USEC (2 * USEC_PER_MSEC)
#define PARK_LOOKBACK_USEC USEC_PER_SEC         /* a record received before the event was handled */
#define CARRY_SAVE_USEC USEC_PER_SEC     /* the carried counters, saved at most this often */
#define MOUNT_SETTLE_USEC (100 * USEC_PER_MSEC)  /* a container's mounts come in a burst */
#define MOUNT_SCAN_DEADLINE_USEC (500 * USEC_PER_MSEC)  /* ...but a burst delays the scan no longer */
typedef struct ParkedRead {
        pid_t pid;
        usec_t since;           /* CLOCK_MONOTONIC, when the event was handled */
        char *path;
        char *comm;             /* what /proc still showed (a zombie's comm), or NULL */
        bool has_uid;
        uid_t uid;
} ParkedRead;

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

        Topology topology;
        uint64_t topology_changes;      /* uevents about CPUs, memory, nodes */
        uint64_t topology_reloads;
        uint64_t topology_changed_at;   /* CLOCK_REALTIME µs, 0: never */
        bool topology_nodes_changed;    /* a node uevent since the last reload: re-mark files */
        bool topology_cpus_changed;     /* a CPU uevent since the last reload: re-read precision */
        sd_event_source *topology_timer;
        ZoneThreshold *zones;           /* counter precision, from /proc/zoneinfo */
        size_t n_zones;
        bool zones_stale;               /* CPUs changed while we could not read zoneinfo */

        Readers *readers;               /* NULL: reader detection unavailable (or died) */
        char *readers_error;
        usec_t readers_backoff;         /* the next retry's delay after a failure */
        uint64_t readers_retry_at;      /* CLOCK_REALTIME µs, for status; 0: no retry pending */
        sd_event_source *readers_timer;
        ReaderTable readertab;
        KnownCache known_cache;         /* the catalogue's per-process verdicts */
        KmsgMonitor *kmsg;              /* NULL: the kernel's log is not readable here */
        bool kmsg_trigger_pending;      /* the log said "on read"; no read event has claimed it yet */
        sd_event_source *trigger_timer; /* ...until TRIGGER_SETTLE_USEC after */
        bool sampling;                  /* our own armed sample is reading */
        bool sample_triggered;          /* ...and the log said it triggered */
        sd_event_source *armed_timer;   /* the next armed sample */
        bool arm_deferred;              /* arming waits for queued read events */
        bool have_deferred;
        Decision deferred;              /* ...and the decision that wanted it, for the record */
        uint64_t arms;                  /* every arm (coarse, then auto) */
        uint64_t rearms;                /* arms of a triggered auto */
        uint64_t samples;               /* readings of the statistics files */
        uint64_t armed_samples;
        uint64_t triggers;              /* reads that turned an armed auto on (not our samples) */
        UeventMonitor *uevents;
        char *uevents_error;

        /* Readers gone before we looked, named from their exit records
         * (see manager_park()). */
        Taskstats *taskstats;           /* NULL: off, or unavailable */
        char *taskstats_error;          /* why unavailable, if it is */
        ParkedRead parked[PARKED_MAX];  /* oldest first */
        size_t n_parked;
        bool resolving;                 /* manager_resolve_parked() runs */
        sd_event_source *park_timer;
        uint64_t exits_named;           /* parked reads named by their exit record */
        uint64_t exits_missed;          /* ...whose record did not come in time */

        /* Containers' own procfs instances, marked through /proc/PID/root
         * (see containers.h); scanned every [readers] container_scan. */
        ProcInstances instances;
        sd_event_source *scan_timer;
        uint64_t scans;
        usec_t scan_cost;               /* the last scan's duration */
        uint64_t scanned_at;            /* CLOCK_REALTIME µs; 0: never */
        MountWatch *mounts;             /* mount events in known namespaces (6.14+); NULL: unavailable */
        char *mounts_error;
        bool scan_for_mount;            /* the next scan is a mount event's */
        usec_t mount_burst_since;       /* CLOCK_MONOTONIC: its burst's first event */

        /* [metrics] textfile: the metrics for node_exporter's textfile
         * collector, rewritten every interval when they changed. */
        sd_event_source *metrics_timer;
        char *metrics_last;             /* the text written last */
        char *metrics_path;             /* ...where */
        TextfileId metrics_written;     /* ...and the file, for removing it at stop */
        uint64_t metrics_written_at;    /* CLOCK_REALTIME µs; 0: never */
        char *metrics_error;

        RateMeter rate;
        char *rate_error;               /* why there is no allocation rate, if known */
        CounterTrack vmstat_track;
        NodeTrack *node_tracks;
        CarryState carried;             /* the previous daemon's counters, to continue from */
        usec_t carry_saved_at;          /* CLOCK_MONOTONIC: the last save of ours */
        char boot_id[40];               /* this boot's, "" if unknown: carried counters are per boot */
        size_t n_node_tracks;
        uint64_t counter_resets;        /* resets we caused and compensated */
        uint64_t external_resets;       /* resets found in the readings */
        OnTime on_time;
        Ledger ledger;                  /* pages allocated with counting on and off */

        sd_event_source *sample_timer;
        sd_event_source *deadline_timer;

        History history;

        char *runtime_dir;      /* where the crash-restore state lives */
        int runtime_fd;         /* ...opened and checked; -1: crash safety off */
        char *runtime_error;    /* why it is off, if it is */

        VarlinkServer *varlink;
        SocketFile socket_file;         /* the socket file we bound ourselves, if any */
        Varlink **monitors;
        size_t n_monitors;
        Hold **holds;                   /* oldest first */
        size_t n_holds;
        uint64_t hold_ids;
        uint64_t fingerprint;   /* status_fingerprint() last announced (STATUS=, Monitor) */

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
/* Leaves the kernel in the configured exit mode. */
int manager_restore(Manager *m);

/* How often containers' procfs instances are looked for: container_scan
 * when set; unset, every minute on "/" and never under --root=DIR (a tree
 * whose files containers do not read, where scanning the real /proc
 * would only watch files that are not the tree's). 0: never. */
#define CONTAINER_SCAN_DEFAULT (60 * USEC_PER_SEC)
usec_t manager_container_scan(const Manager *m);

/* The engine's configuration, from the config and the operator's choices. */
void manager_policy_config(const Manager *m, PolicyConfig *pc);
/* Whether the kernel counts now, from its mode. */
bool manager_counting(const Manager *m);
/* Reading a statistics file is harmless now (not a patched kernel in
 * "auto", where any read turns counting on). */
bool manager_may_read_stats(const Manager *m);
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
/* Something status shows may have changed: if it did (status_fingerprint()),
 * tell Monitor clients and systemd. */
void manager_state_changed(Manager *m);
