/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The machine's NUMA nodes as last read under root: the topology (which
 * node files there are to follow and show), and the counters' precision
 * from /proc/zoneinfo (per-CPU drift, which follows the CPU count). Read
 * when told: at start-up, and after hotplug. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers.h"
#include "topology.h"

typedef struct Nodes Nodes;

/* No nodes until nodes_load(). */
int nodes_new(const char *root, Nodes **ret);
Nodes *nodes_free(Nodes *n);
static inline void nodes_freep(Nodes **n) {
        nodes_free(*n);
}

/* Reads the topology at start-up; failing, there are no nodes to show. */
int nodes_load(Nodes *n);
/* Reads the topology again. *ret_changed: the set of nodes changed (their
 * files came or went). On failure the last one stays. */
int nodes_reload(Nodes *n, bool *ret_changed);
/* Reads the counters' precision again; with may_read false (reading
 * zoneinfo would be taken for a reader now), marks it stale instead. */
void nodes_refresh_zones(Nodes *n, bool may_read);

const Topology *nodes_topology(const Nodes *n);
const ZoneThreshold *nodes_zones(const Nodes *n, size_t *ret_n);
/* CPUs changed while zoneinfo could not be read: the precision is old. */
bool nodes_zones_stale(const Nodes *n);
/* Topology re-reads since start-up (a burst of uevents is one). */
uint64_t nodes_reloads(const Nodes *n);
