/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What is marked: the host's statistics files, and those of containers'
 * procfs and sysfs instances, found without following anything another
 * user made. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* O_LARGEFILE, asprintf() */
#endif

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>

#include "log.h"
#include "resolve.h"
#include "rootfs.h"
#include "strutil.h"
#include "readers-private.h"

/* glob(3) must take the root literally, only the configured pattern is a pattern. */
static int glob_escape(const char *s, char **ret) {
        char *e, *q;

        e = q = malloc(strlen(s) * 2 + 1);
        if (!e)
                return -ENOMEM;
        for (; *s; s++) {
                if (strchr("\\*?[]", *s))
                        *q++ = '\\';
                *q++ = *s;
        }
        *q = '\0';
        *ret = e;
        return 0;
}

static bool strv_contains(char * const *l, const char *s) {
        for (; l && *l; l++)
                if (strcmp(*l, s) == 0)
                        return true;
        return false;
}

/* Resolves the patterns under root into the full paths to mark (fulls) and
 * their configured spellings (paths), deduplicated. */
static int readers_resolve(const char *root, char * const *patterns, char ***ret_fulls, char ***ret_paths) {
        _cleanup_strv_free_ char **fulls = NULL, **paths = NULL;
        _cleanup_free_ char *eroot = NULL;
        size_t prefix = strcmp(root, "/") == 0 ? 0 : strlen(root);
        int k;

        k = glob_escape(root, &eroot);
        if (k < 0)
                return k;

        for (char * const *p = patterns; p && *p; p++) {
                _cleanup_free_ char *pattern = NULL;
                glob_t g = {};

                k = root_path(eroot, *p, &pattern);
                if (k < 0)
                        return k;

                k = glob(pattern, 0, NULL, &g);
                if (k == GLOB_NOMATCH) {
                        log_debug("Watch pattern %s matches nothing under %s.", *p, root);
                        continue;
                }
                if (k != 0) {
                        globfree(&g);
                        return k == GLOB_NOSPACE ? -ENOMEM : -EIO;
                }

                for (size_t i = 0; i < g.gl_pathc; i++) {
                        const char *full = g.gl_pathv[i], *path = full + prefix;
                        struct stat st;

                        /* glob() returned it under the literal root; be sure anyway. */
                        if (strncmp(full, root, prefix) != 0 || path[0] != '/')
                                continue;
                        if (strv_contains(paths, path))
                                continue;
                        if (stat(full, &st) < 0)
                                continue;       /* gone since glob() saw it */
                        if (!S_ISREG(st.st_mode)) {
                                /* A directory mark would report directory listings. */
                                log_warning("Watch pattern %s matches %s, which is not a regular file, ignoring.",
                                            *p, path);
                                continue;
                        }

                        if (strv_extend(&fulls, full) < 0 || strv_extend(&paths, path) < 0) {
                                globfree(&g);
                                return -ENOMEM;
                        }
                }
                globfree(&g);
        }

        *ret_fulls = TAKE_PTR(fulls);
        *ret_paths = TAKE_PTR(paths);
        return 0;
}

/* The marks being built: every inode once, each under its configured path. */
#define HOST_DEVS_MAX 16

typedef struct WatchSet {
        char **kept;
        WatchId *ids;
        size_t n, cap;
        size_t *slots, n_slots; /* ids by inode (ids_index) */
        size_t n_kept, kept_cap;
        size_t *path_slots, n_path_slots;       /* kept by text: index + 1, 0 empty */
        dev_t host_devs[HOST_DEVS_MAX]; /* the superblocks of the root's and the views' own files */
        size_t n_host_devs;
        bool full;              /* the marks limit was reached */
} WatchSet;

static void watch_set_done(WatchSet *w) {
        strv_free(w->kept);
        watch_ids_free(w->ids, w->n);
        free(w->slots);
        free(w->path_slots);
        *w = (WatchSet) {};
}

static bool watch_set_has(const WatchSet *w, const struct stat *st) {
        return ids_find(w->ids, w->slots, w->n_slots, st->st_dev, st->st_ino) >= 0;
}

static bool watch_set_host_dev(const WatchSet *w, dev_t dev) {
        for (size_t i = 0; i < w->n_host_devs; i++)
                if (w->host_devs[i] == dev)
                        return true;
        return false;
}

static size_t path_hash(const char *p, size_t n_slots) {
        uint64_t h = UINT64_C(1469598103934665603);     /* FNV-1a */

        for (; *p; p++)
                h = (h ^ (unsigned char) *p) * UINT64_C(1099511628211);
        return (size_t) h & (n_slots - 1);
}

/* The index of path in kept, adding it if new: -1 on OOM. */
static ssize_t watch_set_path(WatchSet *w, const char *path) {
        if ((w->n_kept + 1) * 2 > w->n_path_slots) {
                size_t n = w->n_path_slots ? w->n_path_slots * 2 : 64;
                size_t *a = calloc(n, sizeof *a);

                if (!a)
                        return -1;
                for (size_t i = 0; i < w->n_kept; i++) {
                        size_t k = path_hash(w->kept[i], n);
                        while (a[k] != 0)
                                k = (k + 1) & (n - 1);
                        a[k] = i + 1;
                }
                free(w->path_slots);
                w->path_slots = a;
                w->n_path_slots = n;
        }
        for (size_t k = path_hash(path, w->n_path_slots);; k = (k + 1) & (w->n_path_slots - 1)) {
                size_t i = w->path_slots[k];

                if (i != 0 && streq(w->kept[i - 1], path))
                        return (ssize_t) (i - 1);
                if (i == 0) {
                        /* Grown by doubling, kept NULL-terminated: strv_extend()
                         * walks the list each time. */
                        if (w->n_kept + 2 > w->kept_cap) {
                                size_t cap = w->kept_cap ? w->kept_cap * 2 : 16;
                                char **a = reallocarray(w->kept, cap, sizeof *a);
                                if (!a)
                                        return -1;
                                w->kept = a;
                                w->kept_cap = cap;
                        }
                        w->kept[w->n_kept] = strdup(path);
                        if (!w->kept[w->n_kept])
                                return -1;
                        w->kept[w->n_kept + 1] = NULL;
                        w->path_slots[k] = ++w->n_kept;
                        return (ssize_t) (w->n_kept - 1);
                }
        }
}

/* Records the inode st as marked under path (and at full in root's tree,
 * or NULL). */
static int watch_set_add(WatchSet *w, const struct stat *st, const char *path, const char *full) {
        char *f = NULL;
        ssize_t i;

        if (w->n == w->cap) {
                size_t cap = w->cap ? w->cap * 2 : 16;
                WatchId *a = reallocarray(w->ids, cap, sizeof *a);
                if (!a)
                        return -ENOMEM;
                w->ids = a;
                w->cap = cap;
        }
        i = watch_set_path(w, path);
        if (i < 0 || (full && !(f = strdup(full))))
                return -ENOMEM;
        w->ids[w->n] = (WatchId) { .dev = st->st_dev, .ino = st->st_ino, .path = (size_t) i, .full = f };
        if (ids_index(w->ids, w->n, &w->slots, &w->n_slots) < 0) {
                free(f);
                return -ENOMEM;
        }
        w->n++;
        return 0;
}

/* The root's and the views' own files: paths root chose. Marking an inode
 * marked already changes nothing, so each is marked again: a path may lead
 * to a new inode of the same number. Any failure but a file that vanished
 * is returned. */
static int watch_host(Readers *r, WatchSet *w, char * const *fulls, char * const *paths) {
        for (size_t i = 0; fulls && fulls[i]; i++) {
                struct stat st;

                /* A view that shares our superblock (a bind mount, or no
                 * namespace of its own) adds nothing. */
                if (stat(fulls[i], &st) < 0 || watch_set_has(w, &st))
                        continue;
                if (fanotify_mark(r->fd, FAN_MARK_ADD, FAN_ACCESS, AT_FDCWD, fulls[i]) < 0) {
                        if (errno == ENOENT) {
                                log_debug("%s vanished before it could be marked.", fulls[i]);
                                continue;
                        }
                        return -errno;
                }
                /* After marking, so the identity is that of the marked inode
                 * (one that vanished since is left: its mark goes with it). */
                if (stat(fulls[i], &st) < 0)
                        continue;
                if (watch_set_add(w, &st, paths[i], fulls[i]) < 0)
                        return -ENOMEM;
                if (!watch_set_host_dev(w, st.st_dev) && w->n_host_devs < HOST_DEVS_MAX)
                        w->host_devs[w->n_host_devs++] = st.st_dev;
        }
        return 0;
}

/* ---- containers' views: the files a look into each one found ---- */

/* Marks a file a look into a container found (fd, O_PATH, at path in its
 * view): through the fd itself, so the mark lands on the inode that was
 * checked, and nothing is looked up. A file whose fd is closed was marked
 * by an earlier call: it stays in the set if this group has it (a group
 * made since has not: the next look brings an fd again). */
static void view_mark(Readers *r, WatchSet *w, int fd, const ProcFileId *id, const char *path, pid_t pid) {
        char self[64];
        struct stat st;

        if (w->full)
                return;
        if (fd >= 0) {
                if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                        return;
        } else {
                st = (struct stat) { .st_dev = (dev_t) id->dev, .st_ino = (ino_t) id->ino };
                if (ids_find(r->ids, r->slots, r->n_slots, st.st_dev, st.st_ino) < 0)
                        return;
        }
        /* A file of a superblock the root's own marks cover is not a
         * procfs or sysfs of the container's own, but a bind mount of one of
         * ours (perhaps of another file of it): nothing to add. */
        if (watch_set_host_dev(w, st.st_dev) || watch_set_has(w, &st))
                return;
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        if (fd >= 0 && fanotify_mark(r->fd, FAN_MARK_ADD, FAN_ACCESS, AT_FDCWD, self) < 0) {
                if (errno == ENOSPC) {
                        w->full = true;
                        log_warning("The fanotify marks limit (fs.fanotify.max_user_marks) is reached: containers' "
                                    "statistics files beyond %zu marks are not watched.", w->n);
                } else
                        log_debug_errno(errno, "Cannot mark %s as process " PID_FMT " sees it: %m", path, pid);
                return;
        }
        /* Out of memory: marked but not listed, its reads are ignored. */
        (void) watch_set_add(w, &st, path, NULL);
}

/* Unmarks what was marked before and is not in w: root's files by their
 * path, where it still leads to the same inode. A container's file, or a
 * file gone, keeps its mark until its inode goes; its reads are not
 * listed, so they are ignored. */
static void unmark_stale(Readers *r, const WatchSet *w) {
        for (size_t i = 0; i < r->n_ids; i++) {
                const WatchId *old = &r->ids[i];
                struct stat st;

                if (ids_find(w->ids, w->slots, w->n_slots, old->dev, old->ino) >= 0 || !old->full)
                        continue;
                if (stat(old->full, &st) < 0 || st.st_dev != old->dev || st.st_ino != old->ino)
                        continue;
                if (fanotify_mark(r->fd, FAN_MARK_REMOVE, FAN_ACCESS, AT_FDCWD, old->full) < 0)
                        log_debug_errno(errno, "Cannot unmark %s: %m", old->full);
        }
}

int readers_watch(Readers *r, const char *root, char * const *patterns, char * const *views,
                  const ProcInstances *containers) {
        _cleanup_strv_free_ char **fulls = NULL, **paths = NULL;
        _cleanup_(watch_set_done) WatchSet w = {};
        int k;

        if (!r)
                return -EINVAL;
        if (isempty(root))
                root = "/";

        /* Resolve first: a failure here leaves the old marks in place. */
        k = readers_resolve(root, patterns, &fulls, &paths);
        if (k < 0)
                return k;
        /* The same files as pid 1's mount namespace sees them (root's own):
         * another procfs instance is another superblock, whose inodes our
         * marks do not cover. A view that cannot be resolved is skipped. */
        for (char * const *v = views; v && *v; v++) {
                _cleanup_strv_free_ char **vf = NULL, **vp = NULL;

                k = readers_resolve(*v, patterns, &vf, &vp);
                if (k < 0) {
                        log_debug_errno(k, "Cannot resolve the statistics files under %s: %m", *v);
                        continue;
                }
                for (size_t i = 0; vf && vf[i]; i++)
                        if (strv_extend(&fulls, vf[i]) < 0 || strv_extend(&paths, vp[i]) < 0)
                                return -ENOMEM;
        }

        /* By difference: the new marks are added before the old ones go, and
         * a file in both is never unmarked, so no read falls between. (A
         * flush and a new start would leave every file unmarked for the
         * time the marking takes.) On failure the old set stays listed. */
        k = watch_host(r, &w, fulls, paths);
        if (k < 0)
                return k;
        /* What a container's files cost is theirs: one that cannot be
         * marked is skipped, the root's marks stay. Root's containers come
         * first (containers.h): the marks limit falls on anyone's. */
        for (size_t i = 0; containers && i < containers->n; i++) {
                const ProcInstance *c = &containers->items[i];

                for (size_t j = 0; j < c->n_files; j++)
                        view_mark(r, &w, c->fds[j], &c->ids[j], c->paths[j], c->pid);
        }
        unmark_stale(r, &w);

        readers_clear_watched(r);
        r->watched = TAKE_PTR(w.kept);
        r->ids = TAKE_PTR(w.ids);
        r->n_ids = w.n;
        r->slots = TAKE_PTR(w.slots);
        r->n_slots = w.n_slots;
        return (int) r->n_ids;
}
