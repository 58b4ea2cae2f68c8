/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "nodes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "stats.h"

struct Nodes {
        char *root;
        Topology topology;
        uint64_t reloads;
        ZoneThreshold *zones;
        size_t n_zones;
        bool zones_stale;
};

int nodes_new(const char *root, Nodes **ret) {
        Nodes *n = calloc(1, sizeof *n);

        if (!n)
                return -ENOMEM;
        n->root = strdup(root);
        if (!n->root) {
                free(n);
                return -ENOMEM;
        }
        *ret = n;
        return 0;
}

int nodes_load(Nodes *n) {
        int r = topology_load(n->root, &n->topology);

        if (r < 0)
                return log_warning_errno(r, "Cannot read the NUMA topology, showing no nodes: %m");
        return 0;
}

Nodes *nodes_free(Nodes *n) {
        if (!n)
                return NULL;
        topology_done(&n->topology);
        free(n->zones);
        free(n->root);
        free(n);
        return NULL;
}

static bool same_nodes(const Topology *a, const Topology *b) {
        if (a->n_nodes != b->n_nodes)
                return false;
        for (size_t i = 0; i < a->n_nodes; i++)
                if (a->nodes[i].id != b->nodes[i].id)
                        return false;
        return true;
}

int nodes_reload(Nodes *n, bool *ret_changed) {
        Topology t;
        int r;

        *ret_changed = false;
        n->reloads++;
        r = topology_load(n->root, &t);
        if (r < 0)
                return log_warning_errno(r, "Cannot re-read the NUMA topology: %m");
        *ret_changed = !same_nodes(&t, &n->topology);
        topology_done(&n->topology);
        n->topology = t;
        return 0;
}

void nodes_refresh_zones(Nodes *n, bool may_read) {
        ZoneThreshold *z = NULL;
        size_t k = 0;
        int r;

        if (!may_read) {
                n->zones_stale = true;
                return;
        }
        r = stats_read_zoneinfo(n->root, &z, &k);
        if (r < 0) {
                log_debug_errno(r, "Cannot read counter precision from /proc/zoneinfo: %m");
                return;
        }
        free(n->zones);
        n->zones = z;
        n->n_zones = k;
        n->zones_stale = false;
}

const Topology *nodes_topology(const Nodes *n) {
        return &n->topology;
}

const ZoneThreshold *nodes_zones(const Nodes *n, size_t *ret_n) {
        *ret_n = n->n_zones;
        return n->zones;
}

bool nodes_zones_stale(const Nodes *n) {
        return n->zones_stale;
}

uint64_t nodes_reloads(const Nodes *n) {
        return n->reloads;
}
