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

typedef struct Topology {
        NumaNode *nodes;
        size_t n_nodes;
} Topology;

/* The nodes, their CPUs and memory, read from sysfs under root, on every
 * root including "/": it follows hotplug (libnuma computes its node masks
 * once, at load). Nodes sorted by id. A system without NUMA support
 * yields zero nodes, not an error. */
int topology_load(const char *root, Topology *ret);
void topology_done(Topology *t);

/* "0-3,8" for display; buf is always NUL-terminated. */
char *cpus_format(const unsigned *cpus, size_t n, char *buf, size_t size);
