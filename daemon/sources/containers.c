/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* asprintf() */
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
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

static void proc_instance_done(ProcInstance *x);

void proc_instances_done(ProcInstances *p) {
        if (!p)
                return;
        for (size_t i = 0; i < p->n; i++)
                proc_instance_done(&p->items[i]);
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

bool u64_listed(const uint64_t *l, size_t n, uint64_t v) {
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
                if (stat(path, &ns) < 0 || u64_listed(seen, n, (uint64_t) ns.st_ino))
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

/* ---- the look, in the inspector's child ---- */

typedef struct ViewFiles {
        InstanceAnswer *a;
        int *fds;
        size_t n, used;         /* files; bytes of a->paths used */
} ViewFiles;

static bool is_glob(const char *s) {
        return strpbrk(s, "*?[") != NULL;
}

static void view_add(ViewFiles *v, int fd, const char *path) {
        struct stat st;
        size_t len = strlen(path) + 1;

        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || v->n >= INSPECT_FDS_MAX ||
            v->used + len > sizeof v->a->paths)
                return;
        v->fds[v->n] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (v->fds[v->n] < 0)
                return;
        memcpy(v->a->paths + v->used, path, len);
        v->used += len;
        v->n++;
}

/* Expands pattern rest (relative) below dirfd, one component at a time:
 * no symbolic link followed, no mount crossed, directories listed only
 * for a component with a wildcard. done is the configured path so far. */
static void view_expand(ViewFiles *v, int dirfd, const char *rest, const char *done) {
        _cleanup_free_ char *comp = NULL;
        const char *after;
        size_t len;

        rest += strspn(rest, "/");
        len = strcspn(rest, "/");
        if (len == 0 || v->n >= INSPECT_FDS_MAX)
                return;
        comp = strndup(rest, len);
        if (!comp)
                return;
        after = rest + len;

        if (!is_glob(comp)) {
                _cleanup_free_ char *path = NULL;
                _cleanup_close_ int fd = resolve_open_path(dirfd, comp, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
                                                                                RESOLVE_NO_XDEV);

                if (fd < 0 || asprintf(&path, "%s/%s", done, comp) < 0)
                        return;
                if (after[strspn(after, "/")] == '\0')
                        view_add(v, fd, path);
                else
                        view_expand(v, fd, after, path);
                return;
        }

        int lfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
        struct dirent *de;

        if (!d) {
                safe_close(lfd);
                return;
        }
        while ((de = readdir(d)) && v->n < INSPECT_FDS_MAX) {
                _cleanup_free_ char *literal = NULL;

                if (fnmatch(comp, de->d_name, FNM_PERIOD) != 0 || strchr(de->d_name, '\\') || is_glob(de->d_name))
                        continue;
                if (asprintf(&literal, "%s%s", de->d_name, after) < 0)
                        break;
                view_expand(v, dirfd, literal, done);
        }
        closedir(d);
}

/* The file system a pattern's top directory must hold in a container. */
static long view_magic(const char *pattern, const char **ret_rest) {
        if (startswith(pattern, "/proc/")) {
                *ret_rest = pattern + strlen("/proc/");
                return PROC_SUPER_MAGIC;
        }
        if (startswith(pattern, "/sys/")) {
                *ret_rest = pattern + strlen("/sys/");
                return SYSFS_MAGIC;
        }
        return 0;
}

int instance_inspect(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                     size_t *n_fds) {
        const InstanceAsk *ask = request;
        _cleanup_close_ int procfd = -1, vmstat = -1;
        InstanceAnswer *a = answer;
        ViewFiles v = { .a = a, .fds = fds };
        struct stat st;

        if (size < sizeof *a)
                return -EINVAL;
        *a = (InstanceAnswer) {};
        /* A root on FUSE: a lookup there could wait on its server forever
         * (we would be killed; better not to ask). A mount table past the
         * cap: the same. */
        if (inspected_root_may_block(p))
                return 0;
        procfd = resolve_open_fs_root(inspected_mountinfo(p), p->rootfd, "proc", PROC_SUPER_MAGIC);
        if (procfd < 0)
                return 0;
        vmstat = resolve_open_path(procfd, "vmstat", RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV);
        if (vmstat < 0 || fstat(vmstat, &st) < 0 || !S_ISREG(st.st_mode))
                return 0;
        a->found = true;
        a->dev = (uint64_t) st.st_dev;
        for (char * const *pat = ask->patterns; pat && *pat; pat++) {
                _cleanup_close_ int sysfd = -1;
                const char *rest;
                long magic = view_magic(*pat, &rest);

                if (magic == 0)
                        continue;       /* not a file of /proc or /sys: nothing a container has apart */
                if (magic == SYSFS_MAGIC) {
                        sysfd = resolve_open_fs_root(inspected_mountinfo(p), p->rootfd, "sys", SYSFS_MAGIC);
                        if (sysfd < 0)
                                continue;
                }
                view_expand(&v, magic == PROC_SUPER_MAGIC ? procfd : sysfd, rest,
                            magic == PROC_SUPER_MAGIC ? "/proc" : "/sys");
        }
        a->n_files = v.n;
        *n_fds = v.n;
        return 0;
}

/* ---- the daemon's side ---- */

int proc_instance_take_files(ProcInstance *x, const InstanceAnswer *a, int *fds, size_t n_fds) {
        const char *path = a->paths, *end = a->paths + sizeof a->paths;
        size_t n = MIN(a->n_files, n_fds);

        x->fds = calloc(n ?: 1, sizeof *x->fds);
        x->ids = calloc(n ?: 1, sizeof *x->ids);
        x->paths = calloc(n + 1, sizeof *x->paths);
        if (!x->fds || !x->ids || !x->paths)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                size_t len = strnlen(path, (size_t) (end - path));
                struct stat st;

                if (path + len >= end)
                        break;          /* a short answer: what came whole */
                /* The child checked it is a real procfs or sysfs file: fstat()
                 * of it does not wait on anyone. */
                if (fstat(fds[i], &st) < 0 || !S_ISREG(st.st_mode)) {
                        path += len + 1;
                        continue;
                }
                x->paths[x->n_files] = strdup(path);
                if (!x->paths[x->n_files])
                        return -ENOMEM;
                x->ids[x->n_files] = (ProcFileId) { .dev = (uint64_t) st.st_dev, .ino = (uint64_t) st.st_ino };
                x->fds[x->n_files] = fds[i];
                fds[i] = -1;
                x->n_files++;
                path += len + 1;
        }
        return 0;
}

void proc_instances_close_files(ProcInstances *p) {
        for (size_t i = 0; p && i < p->n; i++)
                for (size_t j = 0; j < p->items[i].n_files; j++)
                        p->items[i].fds[j] = safe_close(p->items[i].fds[j]);
}

static void proc_instance_done(ProcInstance *x) {
        free(x->comm);
        for (size_t i = 0; i < x->n_files; i++)
                safe_close(x->fds[i]);
        free(x->fds);
        free(x->ids);
        strv_free(x->paths);
        *x = (ProcInstance) {};
}

int proc_instances_add(ProcInstances *p, ProcInstance *x) {
        ProcInstance *a, *slot;

        if (proc_instances_have(p, x->dev)) {
                proc_instance_done(x);
                return 0;
        }
        if (p->n >= PROC_INSTANCES_MAX) {
                /* Full: root's instance takes the place of one anyone made. */
                size_t i = p->n;

                while (x->owner == 0 && i > 0 && p->items[i - 1].owner == 0)
                        i--;
                p->dropped++;
                if (x->owner != 0 || i == 0) {
                        proc_instance_done(x);
                        return 0;
                }
                slot = &p->items[i - 1];
                proc_instance_done(slot);
        } else {
                a = reallocarray(p->items, p->n + 1, sizeof *a);
                if (!a) {
                        proc_instance_done(x);
                        return -ENOMEM;
                }
                p->items = a;
                slot = &p->items[p->n++];
        }
        *slot = *x;
        *x = (ProcInstance) {};
        return 1;
}
