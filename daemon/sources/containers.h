/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* procfs instances other than ours: a container that mounts its own /proc
 * (every `mount -t proc` is a new superblock) reads statistics files our
 * fanotify marks do not cover. Found by scanning the mount namespaces of
 * the processes in the daemon's /proc: for each namespace not seen yet in
 * the scan, the /proc/vmstat its processes see, through /proc/PID/root.
 * No namespace fd is kept (it would keep the namespace alive): an
 * instance is a superblock, reached again through a process that sees it
 * at each scan, and dropped when none does. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "inspector.h"

typedef struct ProcFileId {
        uint64_t dev, ino;
} ProcFileId;

typedef struct ProcInstance {
        uint64_t dev;           /* st_dev of its vmstat: the superblock */
        pid_t pid;              /* a process whose mount namespace has it at /proc */
        char *comm;             /* ...its comm then (raw, untrusted) */
        uint64_t mntns;         /* ...and that namespace's inode */
        uint64_t since;         /* CLOCK_REALTIME µs, first found */
        bool by_mount_event;    /* first found by a scan its own namespace's mount event asked for */
        bool in_user_ns;        /* its process is in a user namespace of its own */
        uid_t owner;            /* its namespace's (owner.h): 0, root's */
        int *fds;               /* its statistics files, O_PATH, as the look found them: marked through
                                 * these, then closed (-1): an open file would keep the container from
                                 * unmounting its /proc (EBUSY) */
        char **paths;           /* ...each's path in its view ("/proc/vmstat"); NULL: an instance's
                                 * identity only, its files moved on */
        ProcFileId *ids;        /* ...each's inode: what the marks are known by once the fds are closed */
        size_t n_files;
} ProcInstance;

typedef struct ProcInstances {
        ProcInstance *items;
        size_t n;
        size_t dropped;         /* real instances the last scan found beyond the bound */
} ProcInstances;

/* Bounded: a host with more containers has them unwatched beyond this.
 * Root's (what root started: container engines, sandboxed services, in
 * our user namespace or one root made) go first; any user can make
 * instances in a user namespace of their own, and those fill only what is
 * left. */
#define PROC_INSTANCES_MAX 256

/* A look into one mount namespace (inspector.h), through one of its
 * processes, made in a child as that process: the procfs mounted at its
 * root's /proc, if a real one is, and the statistics files patterns name
 * there (a pattern under /proc in that procfs, one under /sys in a real
 * sysfs at /sys), without following a symbolic link or crossing a mount
 * below them. */
typedef struct InstanceAsk {
        char * const *patterns;         /* the daemon's (the child is a copy of it) */
} InstanceAsk;

typedef struct InstanceAnswer {
        bool found;
        uint64_t dev;                   /* its vmstat's superblock */
        size_t n_files;                 /* as many fds come with it, in order */
        char paths[INSPECT_ANSWER_MAX - 64];    /* each NUL-terminated, one after another */
} InstanceAnswer;

/* The InspectWork for an InstanceAsk: at most INSPECT_FDS_MAX files. */
int instance_inspect(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                     size_t *n_fds);

/* Moves the files of an answer (and the fds that came with it, each
 * taken: -1) into x. */
int proc_instance_take_files(ProcInstance *x, const InstanceAnswer *a, int *fds, size_t n_fds);

/* Closes the fds of p's files: marked, or never to be (the ids stay). */
void proc_instances_close_files(ProcInstances *p);

/* Adds x (taken: zeroed) to p, within PROC_INSTANCES_MAX, root's first. */
int proc_instances_add(ProcInstances *p, ProcInstance *x);

/* Calls cb once for every mount namespace proc shows, with one of its
 * processes. Returns the number of namespaces, or a negative errno. */
int proc_namespaces_each(const char *proc, void (*cb)(uint64_t ns, pid_t pid, void *userdata), void *userdata);

/* Whether v is one of l's n values (devices, namespace inodes). Pure. */
bool u64_listed(const uint64_t *l, size_t n, uint64_t v);

/* Whether p holds the superblock dev. Pure. */
bool proc_instances_have(const ProcInstances *p, uint64_t dev);

/* Whether a and b hold the same superblocks (order aside). Pure. */
bool proc_instances_same(const ProcInstances *a, const ProcInstances *b);

void proc_instances_done(ProcInstances *p);
