/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's state as one read-only value. The manager builds it in one
 * place (status_build()); every output reads it and nothing else: the
 * varlink service (GetStatus, Monitor), the systemd STATUS= line, metrics.
 *
 * A Status borrows from the manager: its pointers are valid until the
 * manager next changes, i.e. within the event-loop callback that built it.
 * Build, consume, drop. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"
#include "cause.h"
#include "containers.h"
#include "counters.h"
#include "history.h"
#include "holds.h"
#include "inspector.h"
#include "kernel-state.h"
#include "mode.h"
#include "executor.h"
#include "parsers.h"
#include "policy.h"
#include "known.h"
#include "best.h"
#include "readertab.h"
#include "topology.h"

typedef struct Manager Manager;

typedef struct StatusSources {
        bool readers;                   /* reader detection works now */
        bool readers_pidfd;             /* readers are pinned by pidfd (kernel >= 5.15) */
        uint64_t reads_coalesced;       /* readers_coalesced() */
        const char *readers_error;      /* why not, if not */
        uint64_t readers_retry_at;      /* CLOCK_REALTIME µs of the next attempt to re-create it, 0: none */
        char *const *watched;           /* NULL-terminated */
        bool exit_records;              /* taskstats exit records name readers gone before we looked */
        const char *exit_records_error; /* why not, if configured and not */
        uint16_t exit_records_version;  /* struct taskstats version the kernel sends; 0: none seen */
        uint64_t exits_named;           /* reads by exited readers named from their record */
        uint64_t exits_missed;          /* ...whose record did not come in time */
        uint64_t container_scan;        /* µs between scans for containers' procfs; 0: off */
        const ProcInstances *instances; /* containers' procfs instances watched */
        uint64_t scans;
        uint64_t scan_cost;             /* µs, the last scan */
        uint64_t scanned_at;            /* CLOCK_REALTIME µs; 0: never */
        bool mount_events;              /* mounts in known namespaces rescan at once (6.14+) */
        const char *mount_events_error;
        uint64_t mount_namespaces;      /* ...namespaces marked */
        InspectStats reader_looks;      /* looks into readers' processes */
        InspectStats scan_looks;        /* ...and the container scan's */
        uint64_t scan_skipped;          /* namespaces the last scan left alone */
        const char *metrics_textfile;   /* [metrics] textfile, or NULL */
        const char *metrics_error;      /* why it could not be written last */
        uint64_t metrics_written_at;    /* CLOCK_REALTIME µs; 0: never */
        const char *rate_error;
        bool uevents;
        const char *uevents_error;
        bool kernel_log;                /* /dev/kmsg followed: an auto's trigger is known exactly */
        uint64_t topology_changes;      /* uevents that touched the topology */
        uint64_t topology_reloads;      /* topology re-reads (bursts of uevents are one) */
        uint64_t topology_changed_at;   /* CLOCK_REALTIME µs, 0: never */
        uint64_t samples;               /* readings of the statistics files taken */
        bool kernel_tells_mounts;       /* statmount() answers (resolve_kernel_tells_mounts()) */
} StatusSources;

typedef struct StatusCounters {
        NumaCounters total;             /* counted since start, from /proc/vmstat */
        NumaCounters continuous;        /* /proc/vmstat as if never reset since start */
        const NodeTrack *nodes;         /* per node, since start */
        size_t n_nodes;
        uint64_t resets_compensated;
        uint64_t external_resets;
        double counting_share;          /* of the time since start, 0..1 */
        uint64_t on_usec, off_usec;     /* time since start with counting on, off */
} StatusCounters;

/* What counting off bought: pages allocated with counting off, and what
 * that saved where the bench figure for this kernel is configured. */
typedef struct StatusLedger {
        uint64_t pages_on, pages_off;
        double share_off;               /* of the pages allocated, 0..1 */
        double insns_per_page;          /* [ledger] insns_per_page; 0: unset */
} StatusLedger;

typedef struct Status {
        const char *version;
        pid_t pid;
        uint64_t started;               /* CLOCK_REALTIME µs */
        const char *root;
        const char *config_file;
        const char *config_error;       /* the last rejected reload, or NULL */

        BackendKind backend;
        const KernelState *kernel;      /* the mode as last read back; an auto's armed or triggered */
        KernelMode target_mode;         /* what the policy wants; UNKNOWN: leave the kernel alone */
        bool counting;                  /* whether the kernel counts now */
        uint64_t arms;                  /* patched kernels: coarse-then-auto, every one */
        uint64_t rearms;                /* ...of an auto a read had triggered */
        uint64_t armed_samples;         /* rate samples taken while armed */
        uint64_t triggers;              /* reads that turned an armed auto on */

        Policy policy;
        Cause policy_source;            /* STARTUP (the config), RELOAD or OPERATOR (SetPolicy) */
        bool dry_run;
        bool paused;
        const Decision *decision;       /* cause, reader, rule, reason */
        PolicyConfig policy_config;     /* to render the reason again, for a caller who may not see a reader */

        bool have_rate;
        double rate;                    /* pages/s, smoothed */
        const ErrorRecord *last_error;

        const Topology *topology;
        const ZoneThreshold *zones;
        size_t n_zones;
        bool zones_stale;

        const ReaderTable *readers;
        uint64_t now;                   /* CLOCK_MONOTONIC µs: when it was built */
        uint64_t changes;               /* events the daemon has handled: moves with any change */
        usec_t linger_max;              /* for which readers keep counting on now */
        const Catalogue *known_readers; /* the catalogue in effect, NULL with [readers] known = no */
        const Holds *holds;             /* numastatctl hold (holds_get()), oldest first */
        StatusSources sources;
        StatusCounters counters;
        StatusLedger ledger;
        const BestPlanner *best;        /* the best possible, as last planned */
        const History *history;
} Status;

/* Builds the snapshot of m at now (CLOCK_MONOTONIC µs, for time shares);
 * manager-status.c. */
void status_build(const Manager *m, uint64_t now, Status *ret);

/* A digest of what a person would call a change: modes, policy, cause and
 * reason, the set of readers (not their counts), errors, topology, the
 * transition count. Rates, shares and counters do not enter it, so Monitor
 * is not woken by a number that ticked. */
uint64_t status_fingerprint(const Status *s);

/* The one-line summary for systemd's STATUS=, escaped, as anyone may see
 * it: systemd shows it to every user. */
char *status_format_notify(const Status *s, char *buf, size_t size);
/* What the best schedule under the policy's thresholds would have kept
 * off over the daemon's own trace of the last 24 hours, and what the
 * daemon did, as last planned (best.h); -ENODATA before a plan. */
int status_best(const Status *s, BestFigures *ret);
/* Whether e's reads keep counting on now (policy auto, counting on). */
bool status_keeps_counting_on(const Status *s, const ReaderEntry *e);

/* Who asks. Status is served to anyone who can connect; what another
 * user's process is (its pid, uid, unit, executable) is not everyone's to
 * see: /proc hides it too, with hidepid= or without ptrace access. The
 * rule: uid 0 sees everything; any other caller sees its own readers in
 * full, and other users' readers by comm and file only. */
typedef struct StatusViewer {
        bool all;               /* root */
        uid_t uid;
} StatusViewer;

#define STATUS_VIEWER_ALL ((const StatusViewer) { .all = true })
/* Whoever: every reader is another user's (uid -1 is no one's). */
#define STATUS_VIEWER_ANYONE ((const StatusViewer) { .all = false, .uid = (uid_t) -1 })

/* Whose rendering of s viewer gets, the same text: root's; its own uid's
 * if s names that uid (a reader, a hold, a transition, the decision);
 * else STATUS_VIEWER_ANYONE's, which every uid s does not name shares. */
StatusViewer status_viewer_kind(const Status *s, const StatusViewer *viewer);

/* The io.numastatd status object, as viewer may see it. NULL on OOM. */
json_object *status_to_json(const Status *s, const StatusViewer *viewer);

/* ListKnownReaders' known_readers: the catalogue's entries. NULL on OOM. */
json_object *catalogue_to_json(const Catalogue *c);
/* ListKnownReaders' dirs: where the catalogue was looked for. */
json_object *catalogue_dirs_json(const Catalogue *c);

/* GetCounters' object: the counters as the kernel would show them had
 * nothing been reset since the daemon started. fresh: read for this call. */
json_object *status_counters_to_json(const Status *s, bool fresh);
