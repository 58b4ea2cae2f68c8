/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Containers' own procfs instances (containers.h), looked for every
 * period and soon after a mount in a known namespace (mount events,
 * Linux 6.14 and later). A scan tells its owner when the set of instances
 * changed, so that their files (found by the scan, kept open) are marked. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "containers.h"
#include "strutil.h"

typedef struct ContainerWatch ContainerWatch;
typedef void (*ContainerWatchChanged)(ContainerWatch *w, void *userdata);

/* root: the tree whose /proc is ours already (skipped). */
int container_watch_new(sd_event *event, const char *root, ContainerWatchChanged changed, void *userdata,
                        ContainerWatch **ret);
ContainerWatch *container_watch_free(ContainerWatch *w);

/* Listens for mount events; where there are none, the error is kept for
 * status and the scans alone find containers. */
void container_watch_listen_mounts(ContainerWatch *w);
/* Scans every period from now; 0: never, and mount events are ignored. */
void container_watch_set_period(ContainerWatch *w, usec_t period);
/* Drops the instances found; returns whether there were any (the owner
 * re-marks). */
bool container_watch_forget(ContainerWatch *w);
/* Scans now (after the scan under way, if one is): each mount namespace is
 * looked into by a child of ours as one of its processes (containers.h,
 * inspector.h), a few at a time, the loop waiting for none: root's (owner.h)
 * all and first, in a place no other owner may take; each other owner's up
 * to a bound (the rest keep what they had), in turns. When the last
 * look is answered (or killed at its deadline), the set found is the
 * instances; if it changed, the owner is told. */
void container_watch_scan(ContainerWatch *w);
/* The instances' files are marked (or will not be): their fds are closed,
 * so that nothing of ours keeps a container's /proc mounted. Instances
 * carried into later scans are known by their files' inodes. */
void container_watch_files_marked(ContainerWatch *w);
/* The statistics files to find in each container (the watch patterns). */
int container_watch_set_patterns(ContainerWatch *w, char * const *patterns);

/* Read-only views, for marking and for status. Every function takes a
 * NULL watch (one that could not be made) as one that finds nothing. */
const ProcInstances *container_watch_instances(const ContainerWatch *w);
uint64_t container_watch_scans(const ContainerWatch *w);
uint64_t container_watch_looks(const ContainerWatch *w);         /* children started, in all */
InspectStats container_watch_look_stats(const ContainerWatch *w);
/* Namespaces the last scan left alone (they keep what they had): an
 * owner's beyond its share, or beyond what one scan takes. */
size_t container_watch_skipped(const ContainerWatch *w);
usec_t container_watch_cost(const ContainerWatch *w);           /* the last scan's duration */
uint64_t container_watch_scanned_at(const ContainerWatch *w);   /* CLOCK_REALTIME µs; 0: never */
bool container_watch_mount_events(const ContainerWatch *w);
const char *container_watch_mount_events_error(const ContainerWatch *w);
size_t container_watch_mount_namespaces(const ContainerWatch *w);
