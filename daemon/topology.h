/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct NumaNode {
        int id;
        unsigned *cpus;
        size_t n_cpus;
        uint64_t memory_total_bytes;
} NumaNode;

typedef enum TopologySource {
        TOPOLOGY_LIBNUMA,       /* root "/": the live system, through libnuma */
        TOPOLOGY_TREE,          /* other roots: the tree's sys/devices/system/node */
        _TOPOLOGY_SOURCE_MAX,
} TopologySource;

typedef struct Topology {
        TopologySource source;
        NumaNode *nodes;
        size_t n_nodes;
} Topology;

const char *topology_source_to_string(TopologySource s);

/* libnuma only knows the live /sys; under another root the node list must
 * come from that tree so status and the watched node files agree. A system
 * without NUMA support yields zero nodes, not an error. */
int topology_load(const char *root, Topology *ret);
void topology_done(Topology *t);

/* "0-3,8" for display; buf is always NUL-terminated. */
char *cpus_format(const unsigned *cpus, size_t n, char *buf, size_t size);
