/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's context: everything mutable lives here, nowhere else. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "backend.h"
#include "conf.h"
#include "policy.h"
#include "topology.h"
#include "varlink.h"

#define TRANSITIONS_MAX 64

typedef struct Transition {
        uint64_t time;          /* CLOCK_REALTIME, µs */
        KernelMode from, to;
        Policy policy;
        bool dry_run;
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
        Decision decision;
        bool have_decision;
        ManagerError last_error;

        Topology topology;

        Transition transitions[TRANSITIONS_MAX];        /* ring, oldest at transitions_first */
        size_t transitions_first, n_transitions;
        uint64_t transitions_total;

        VarlinkServer *varlink;
        char *bound_socket;     /* a path we bound ourselves and unlink at exit */
        Varlink **monitors;
        size_t n_monitors;
        char *last_status_sent; /* Monitor sends only when this changes */

        uint64_t started;       /* CLOCK_REALTIME, µs */
        int exit_code;
} Manager;

/* Takes over *config (left zeroed). */
int manager_new(const ManagerOptions *opts, Config *config, Manager **ret);
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m) {
        manager_free(*m);
}

/* Detects the backend, reads the topology, opens the socket. */
int manager_start(Manager *m);
/* Decides and, unless in dry run, drives the kernel. Returns the write's
 * error, which is also logged and kept in status. */
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
/* Something status shows changed: tell Monitor clients and systemd. */
void manager_state_changed(Manager *m);
