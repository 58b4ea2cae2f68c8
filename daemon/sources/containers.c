/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "containers.h"
#include "macro.h"
#include "resolve.h"
#include "rootfs.h"
#include "strutil.h"
#include "time-util.h"

void proc_instances_done(ProcInstances *p) {
        if (!p)
                return;
        for (size_t i = 0; i < p->n; i++)
                free(p->items[i].comm);
        free(p->items);
        *p = (ProcInstances) {};
}

bool proc_instances_have(const ProcInstances *p, uint64_t dev) {
        for (size_t i = 0; i < p->n; i++)
                if (p->items[i].dev == dev)
                        return true;
        return false;
}

bool proc_instances_same(const ProcInstances *a, const ProcInstances *b) {
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (!proc_instances_have(b, a->items[i].dev))
                        return false;
        return true;
}

static bool u64_in(const uint64_t *l, size_t n, uint64_t v) {
        for (size_t i = 0; i < n; i++)
                if (l[i] == v)
                        return true;
        return false;
}

int proc_namespaces_each(const char *proc, void (*cb)(uint64_t ns, pid_t pid, void *userdata), void *userdata) {
        _cleanup_free_ uint64_t *seen = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        DIR *d = opendir(proc);

        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                char path[PATH_MAX], *end;
                long pid = strtol(de->d_name, &end, 10);
                struct stat ns;

                if (*end || pid <= 0)
                        continue;
                snprintf(path, sizeof path, "%s/%ld/ns/mnt", proc, pid);
                if (stat(path, &ns) < 0 || u64_in(seen, n, (uint64_t) ns.st_ino))
                        continue;
                if (n == cap) {
                        uint64_t *a = reallocarray(seen, cap ? cap * 2 : 64, sizeof *a);
                        if (!a)
                                break;
                        seen = a;
                        cap = cap ? cap * 2 : 64;
                }
                seen[n++] = (uint64_t) ns.st_ino;
                cb((uint64_t) ns.st_ino, (pid_t) pid, userdata);
        }
        closedir(d);
        return (int) n;
}

typedef struct ScanState {
        const char *proc;
        uint64_t own_user_ns;   /* our user namespace's inode; 0: unknown */
        const uint64_t *skip;
        size_t n_skip;
        ProcInstances found;
        bool oom;
} ScanState;

/* The vmstat of the procfs mounted at the root of process pid, if a real
 * one is: a user can mount anything at their /proc, or make it a link. */
static int instance_vmstat(const char *proc, pid_t pid, struct stat *ret) {
        _cleanup_close_ int rootfd = -1, procfd = -1, fd = -1;
        _cleanup_free_ char *mountinfo = NULL;
        char path[PATH_MAX];

        snprintf(path, sizeof path, "%s/" PID_FMT "/root", proc, pid);
        rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return -errno;
        /* A root on FUSE: a lookup there could wait on its server forever. */
        mountinfo = resolve_mountinfo(pid);
        if (resolve_root_may_block(mountinfo, rootfd))
                return -EWOULDBLOCK;
        procfd = resolve_open_fs_root(mountinfo, rootfd, "proc", PROC_SUPER_MAGIC);
        if (procfd < 0)
                return procfd;
        fd = resolve_open_path(procfd, "vmstat", RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV);
        if (fd < 0)
                return fd;
        if (fstat(fd, ret) < 0)
                return -errno;
        return S_ISREG(ret->st_mode) ? 0 : -EBADFD;
}

/* The inode of process pid's user namespace (0 if it cannot be told). */
static uint64_t user_ns_of(const char *proc, pid_t pid) {
        char path[PATH_MAX];
        struct stat st;

        if (pid > 0)
                snprintf(path, sizeof path, "%s/" PID_FMT "/ns/user", proc, pid);
        else
                snprintf(path, sizeof path, "%s/self/ns/user", proc);
        return stat(path, &st) < 0 ? 0 : (uint64_t) st.st_ino;
}

/* One mount namespace: the statistics file as it sees it at /proc. */
static void scan_one(uint64_t ns, pid_t pid, void *userdata) {
        ScanState *s = userdata;
        char comm_path[64], *comm = NULL;
        ProcInstance *a, *slot;
        bool in_user_ns;
        struct stat st;

        if (s->oom || instance_vmstat(s->proc, pid, &st) < 0 || u64_in(s->skip, s->n_skip, (uint64_t) st.st_dev) ||
            proc_instances_have(&s->found, (uint64_t) st.st_dev))
                return;
        in_user_ns = user_ns_of(s->proc, pid) != s->own_user_ns;
        if (s->found.n >= PROC_INSTANCES_MAX) {
                /* Full: root's instance takes the place of one anyone made. */
                size_t i = s->found.n;

                while (!in_user_ns && i > 0 && !s->found.items[i - 1].in_user_ns)
                        i--;
                if (in_user_ns || i == 0) {
                        s->found.dropped++;
                        return;
                }
                slot = &s->found.items[i - 1];
                free(slot->comm);
                s->found.dropped++;
        } else {
                a = reallocarray(s->found.items, s->found.n + 1, sizeof *a);
                if (!a) {
                        s->oom = true;
                        return;
                }
                s->found.items = a;
                slot = &s->found.items[s->found.n++];
        }
        snprintf(comm_path, sizeof comm_path, "/" PID_FMT "/comm", pid);
        if (root_read_file(s->proc, comm_path, 64, &comm) >= 0)
                comm[strcspn(comm, "\n")] = '\0';
        *slot = (ProcInstance) {
                .in_user_ns = in_user_ns,
                .dev = (uint64_t) st.st_dev,
                .pid = pid,
                .comm = comm,
                .mntns = ns,
                .since = now_usec(CLOCK_REALTIME),
        };
}

int proc_instances_scan(const char *proc, const uint64_t *skip, size_t n_skip, const ProcInstances *old,
                        ProcInstances *ret) {
        ScanState state = { .proc = proc, .own_user_ns = user_ns_of(proc, 0), .skip = skip, .n_skip = n_skip };
        ProcInstances found;
        int r;

        r = proc_namespaces_each(proc, scan_one, &state);
        if (r < 0)
                return r;
        found = state.found;
        /* An instance found before keeps its age. */
        for (size_t i = 0; old && i < found.n; i++)
                for (size_t j = 0; j < old->n; j++)
                        if (old->items[j].dev == found.items[i].dev) {
                                found.items[i].since = old->items[j].since;
                                found.items[i].by_mount_event = old->items[j].by_mount_event;
                        }
        *ret = found;
        return (int) found.n;
}
