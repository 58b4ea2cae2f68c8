/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The machine's nodes on a pristine root tree: the topology read at
 * start-up and again after hotplug (saying whether the set of nodes
 * changed), and the counters' precision, marked stale when it may not be
 * read. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "nodes.h"
#include "tap.h"

static char root[] = "/tmp/test-nodes-XXXXXX";

/* A shell command, run in the tree. */
static int sh(const char *cmd) {
        char buf[4096];

        snprintf(buf, sizeof buf, "set -e; cd '%s'; %s", root, cmd);
        return system(buf);
}

int main(void) {
        _cleanup_(nodes_freep) Nodes *n = NULL;
        const char *data = getenv("TEST_DATA_DIR");
        char abs_data[4096], cmd[8192];
        bool changed = true;
        size_t k;

        if (!mkdtemp(root) || !realpath(data && *data ? data : "tests/data", abs_data))
                return 1;
        is_int(sh("mkdir -p proc sys/devices/system/node/node0 && echo 0-1 > sys/devices/system/node/node0/cpulist"),
               0, "a tree with node0");
        is_int(nodes_new(root, &n), 0, "nodes_new");
        is_int((int) nodes_topology(n)->n_nodes, 0, "no nodes before the first read");
        is_int(nodes_load(n), 0, "nodes_load");
        is_int((int) nodes_topology(n)->n_nodes, 1, "  node0");
        is_int((int) nodes_topology(n)->nodes[0].n_cpus, 2, "  with its CPUs");

        is_int(nodes_reload(n, &changed), 0, "a reload, nothing changed");
        ok(!changed, "  the same nodes");
        is_int(sh("mkdir sys/devices/system/node/node1 && echo 2 > sys/devices/system/node/node1/cpulist"), 0,
               "node1 comes");
        is_int(nodes_reload(n, &changed), 0, "a reload");
        ok(changed, "  the set of nodes changed");
        is_int((int) nodes_topology(n)->n_nodes, 2, "  two nodes");
        is_int(sh("echo 2-3 > sys/devices/system/node/node1/cpulist"), 0, "node1's CPUs change");
        is_int(nodes_reload(n, &changed), 0, "a reload");
        ok(!changed, "  the same nodes (their CPUs are the precision's business)");
        is_u64(nodes_reloads(n), 3, "three reloads counted");

        nodes_refresh_zones(n, true);
        ok(!nodes_zones_stale(n) && nodes_zones(n, &k) == NULL && k == 0, "no zoneinfo: no precision, not stale");
        snprintf(cmd, sizeof cmd, "cp '%s/zoneinfo-2node.txt' proc/zoneinfo", abs_data);
        is_int(sh(cmd), 0, "zoneinfo comes");
        nodes_refresh_zones(n, false);
        ok(nodes_zones_stale(n), "not to be read now (an armed auto): stale");
        nodes_zones(n, &k);
        is_int((int) k, 0, "  and not read");
        nodes_refresh_zones(n, true);
        ok(!nodes_zones_stale(n), "read: no longer stale");
        nodes_zones(n, &k);
        is_int((int) k, 8, "  the zones of both nodes");

        snprintf(cmd, sizeof cmd, "cd / && rm -rf '%s'", root);
        (void) sh(cmd);
        return tap_done();
}
