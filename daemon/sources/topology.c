/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "parsers.h"
#include "rootfs.h"
#include "topology.h"

#define NODE_DIR "/sys/devices/system/node"

void topology_done(Topology *t) {
        for (size_t i = 0; i < t->n_nodes; i++)
                free(t->nodes[i].cpus);
        free(t->nodes);
        t->nodes = NULL;
        t->n_nodes = 0;
}

static int node_compare(const void *a, const void *b) {
        const NumaNode *x = a, *y = b;
        return (x->id > y->id) - (x->id < y->id);
}

static int topology_add(Topology *t, NumaNode *n) {
        NumaNode *a = reallocarray(t->nodes, t->n_nodes + 1, sizeof *a);
        if (!a)
                return -ENOMEM;
        t->nodes = a;
        a[t->n_nodes++] = *n;
        return 0;
}

static int node_cpus_from_sysfs(const char *root, int node, NumaNode *n) {
        _cleanup_free_ char *text = NULL;
        char path[96];
        int r;

        snprintf(path, sizeof path, NODE_DIR "/node%d/cpulist", node);
        r = root_read_file(root, path, 65536, &text);
        if (r < 0)
                return r;
        return cpulist_parse(text, &n->cpus, &n->n_cpus);
}

static int topology_load_sysfs(const char *root, Topology *t) {
        _cleanup_free_ char *dir = NULL;
        DIR *d;
        struct dirent *de;
        int r = 0;

        r = root_path(root, NODE_DIR, &dir);
        if (r < 0)
                return r;
        d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;

        while ((de = readdir(d))) {
                _cleanup_free_ char *meminfo = NULL, *path = NULL;
                NumaNode n = {};
                char *end;
                long id;

                if (strncmp(de->d_name, "node", 4) != 0)
                        continue;
                errno = 0;
                id = strtol(de->d_name + 4, &end, 10);
                if (errno || *end || end == de->d_name + 4 || id < 0 || id > 65535)
                        continue;
                n.id = (int) id;

                /* A node without a readable cpulist is memory-only as far as we know. */
                (void) node_cpus_from_sysfs(root, n.id, &n);
                if (asprintf(&path, NODE_DIR "/%s/meminfo", de->d_name) < 0) {
                        free(n.cpus);
                        r = -ENOMEM;
                        break;
                }
                if (root_read_file(root, path, 65536, &meminfo) >= 0)
                        (void) node_meminfo_total_bytes(meminfo, &n.memory_total_bytes);

                r = topology_add(t, &n);
                if (r < 0) {
                        free(n.cpus);
                        break;
                }
        }
        closedir(d);
        if (r >= 0 && t->n_nodes > 1)
                qsort(t->nodes, t->n_nodes, sizeof *t->nodes, node_compare);
        return r;
}

int topology_load(const char *root, Topology *ret) {
        Topology t = {};
        int r;

        r = topology_load_sysfs(root ?: "/", &t);
        if (r < 0) {
                topology_done(&t);
                return r;
        }
        *ret = t;
        return 0;
}

char *cpus_format(const unsigned *cpus, size_t n, char *buf, size_t size) {
        size_t len = 0;

        if (size == 0)
                return buf;
        buf[0] = 0;
        for (size_t i = 0; i < n;) {
                size_t j = i;
                int w;
                while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
                        j++;
                if (j == i)
                        w = snprintf(buf + len, size - len, "%s%u", len ? "," : "", cpus[i]);
                else
                        w = snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", cpus[i], cpus[j]);
                if (w < 0 || (size_t) w >= size - len)
                        break;
                len += w;
                i = j + 1;
        }
        return buf;
}
