/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "containers.h"
#include "macro.h"
#include "rootfs.h"
#include "strutil.h"
#include "time-util.h"

void proc_instances_done(ProcInstances *p) {
        for (size_t i = 0; p && i < p->n; i++)
                free(p->items[i].comm);
        if (p)
                *p = (ProcInstances) { .items = (free(p->items), NULL) };
}

static bool contains_dev(const ProcInstance *items, size_t n, uint64_t dev) {
        for (size_t i = 0; i < n; i++)
                if (items[i].dev == dev)
                        return true;
        return false;
}

bool proc_instances_same(const ProcInstances *a, const ProcInstances *b) {
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (!contains_dev(b->items, b->n, a->items[i].dev))
                        return false;
        return true;
}

static bool u64_in(const uint64_t *l, size_t n, uint64_t v) {
        for (size_t i = 0; i < n; i++)
                if (l[i] == v)
                        return true;
        return false;
}

int proc_instances_scan(const char *proc, const uint64_t *skip, size_t n_skip, const ProcInstances *old,
                        ProcInstances *ret) {
        _cleanup_free_ uint64_t *seen_ns = NULL;
        size_t n_seen = 0, cap_seen = 0;
        ProcInstances found = {};
        DIR *d;
        struct dirent *de;

        d = opendir(proc);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                char path[PATH_MAX];
                struct stat ns, st;
                char *end;
                long pid = strtol(de->d_name, &end, 10);

                if (*end || pid <= 0)
                        continue;
                /* One look per mount namespace: most processes share a few. */
                snprintf(path, sizeof path, "%s/%ld/ns/mnt", proc, pid);
                if (stat(path, &ns) < 0 || u64_in(seen_ns, n_seen, (uint64_t) ns.st_ino))
                        continue;
                if (n_seen == cap_seen) {
                        uint64_t *a = reallocarray(seen_ns, cap_seen ? cap_seen * 2 : 64, sizeof *a);
                        if (!a)
                                break;
                        seen_ns = a;
                        cap_seen = cap_seen ? cap_seen * 2 : 64;
                }
                seen_ns[n_seen++] = (uint64_t) ns.st_ino;

                /* The statistics file as that namespace sees it at /proc. */
                snprintf(path, sizeof path, "%s/%ld/root/proc/vmstat", proc, pid);
                if (stat(path, &st) < 0 || u64_in(skip, n_skip, (uint64_t) st.st_dev) ||
                    contains_dev(found.items, found.n, (uint64_t) st.st_dev) || found.n >= PROC_INSTANCES_MAX)
                        continue;
                {
                        ProcInstance *a = reallocarray(found.items, found.n + 1, sizeof *a);
                        char comm_path[64], *comm = NULL;

                        if (!a)
                                break;
                        found.items = a;
                        snprintf(comm_path, sizeof comm_path, "/%ld/comm", pid);
                        if (root_read_file(proc, comm_path, 64, &comm) >= 0)
                                comm[strcspn(comm, "\n")] = '\0';
                        found.items[found.n++] = (ProcInstance) {
                                .dev = (uint64_t) st.st_dev,
                                .pid = (pid_t) pid,
                                .comm = comm,
                                .mntns = (uint64_t) ns.st_ino,
                                .since = now_usec(CLOCK_REALTIME),
                        };
                }
        }
        closedir(d);

        /* An instance found before keeps its age. */
        for (size_t i = 0; old && i < found.n; i++)
                for (size_t j = 0; j < old->n; j++)
                        if (old->items[j].dev == found.items[i].dev)
                                found.items[i].since = old->items[j].since;
        *ret = found;
        return (int) found.n;
}
