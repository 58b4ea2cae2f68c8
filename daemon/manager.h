/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's context: everything mutable lives in it, nowhere else.
 *
 * State flows one way: sources (reads, rate samples, uevents, the kernel's
 * mode) feed the policy engine; its Decision drives the kernel; status.c
 * builds the one snapshot every output reads. Each fact is kept once:
 * whether the kernel counts is derived from its mode, whether a decision
 * was made lives in the engine, the last reader is the engine's. */

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"
#include "holds.h"
#include "mode.h"
#include "policy.h"
#include "time-util.h"
#include "varlink-server.h"

/* Opaque: defined in manager.c alone. The manager's other files reach the
 * units it holds through manager-internal.h's accessors; others see a
 * Status (status_build()). */
typedef struct Manager Manager;

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
/* The operator's runtime choice, until the next reload. Returns 1 if dry
 * run is in force after it (dry_run < 0 keeps it as it was), 0 if not, or
 * the write's error. */
int manager_set_policy(Manager *m, Policy policy, int dry_run /* <0: unchanged */);

/* A caller wants the counters as of now (GetCounters): samples if it may.
 * Returns whether the counters are current (read now, or frozen since). */
bool manager_sample_for_caller(Manager *m);

/* Why no hold can be kept now, with its errno: no kernel interface, dry
 * run, a pause, or policy coarse. NULL: holds may be taken. */
const char *manager_hold_refused(const Manager *m, int *ret_error);
/* The holds in force changed (the service says so): the engine hears of
 * it, and the kernel follows. */
void manager_holds_changed(Manager *m, const Holds *holds);
/* The last error's message, as status shows it; NULL: none. */
const char *manager_last_error(const Manager *m);
