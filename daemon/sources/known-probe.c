/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "known-probe.h"
#include "log.h"
#include "macro.h"
#include "resolve.h"
#include "rootfs.h"
#include "strutil.h"
#include "time-util.h"

#define CMDLINE_MAX (64 * 1024)
#define CONFIG_MAX (1024 * 1024)

/* Texts are cut where they would overflow: they are for people. */
_printf_(3, 4)
static void format_to(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, size, fmt, ap);
        va_end(ap);
}

void known_cache_clear(KnownCache *c) {
        *c = (KnownCache) {};
}

/* Finds path inside the process's root (O_PATH): absolute links and ".."
 * stay in it, no magic links, and no mount is crossed (a FUSE mount a user
 * made could block us). */
static int open_in_root(int rootfd, const char *path) {
        return resolve_open_path(rootfd, path, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV);
}

static int proc_root_open(pid_t pid) {
        char p[64];
        int fd;

        snprintf(p, sizeof p, "/proc/" PID_FMT "/root", pid);
        fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

/* Whether the process's root is the daemon's own. Cached attributes only:
 * that root may be on FUSE, whose server need not answer. */
static bool same_root(int rootfd) {
        struct statx a;
        struct stat b;

        return statx(rootfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_INO, &a) >= 0 && stat("/", &b) >= 0 &&
               makedev(a.stx_dev_major, a.stx_dev_minor) == b.st_dev && a.stx_ino == b.st_ino;
}

/* One look here: its mountinfo is needed for nothing else. */
static bool root_may_block(pid_t pid, int rootfd) {
        _cleanup_free_ char *mountinfo = resolve_mountinfo(pid);

        return resolve_root_may_block(mountinfo, rootfd);
}

static bool exe_in_root(int rootfd, const KnownExe *e, const KnownRead *rd) {
        _cleanup_close_ int fd = open_in_root(rootfd, e->path);
        struct stat st;

        return fd >= 0 && fstat(fd, &st) >= 0 && S_ISREG(st.st_mode) && (uint64_t) st.st_dev == rd->exe_dev &&
               (uint64_t) st.st_ino == rd->exe_ino;
}

/* The entry whose executable the reader runs: by device and inode as
 * stat() on our root sees it, else (a live process with a root of its own:
 * a container) at the entry's path inside its root. Never by comm. */
static const KnownReader *find_reader(const Catalogue *cat, const KnownRead *rd) {
        _cleanup_close_ int rootfd = -1;

        if (!rd->has_exe_id)
                return NULL;
        for (size_t i = 0; i < cat->n; i++)
                for (size_t j = 0; j < cat->readers[i].n_exes; j++) {
                        const KnownExe *e = &cat->readers[i].exes[j];
                        struct stat st;

                        /* As loaded (a process still running a binary an
                         * upgrade replaced), or as it is now (a package
                         * installed or upgraded since). */
                        if (e->has_id && e->dev == rd->exe_dev && e->ino == rd->exe_ino)
                                return &cat->readers[i];
                        if (stat(e->path, &st) >= 0 && S_ISREG(st.st_mode) && (uint64_t) st.st_dev == rd->exe_dev &&
                            (uint64_t) st.st_ino == rd->exe_ino)
                                return &cat->readers[i];
                }
        if (!rd->alive || rd->pid <= 0)
                return NULL;
        rootfd = proc_root_open(rd->pid);
        /* A root on FUSE could make the lookup wait forever: not known. */
        if (rootfd < 0 || same_root(rootfd) || root_may_block(rd->pid, rootfd))
                return NULL;
        for (size_t i = 0; i < cat->n; i++)
                for (size_t j = 0; j < cat->readers[i].n_exes; j++)
                        if (exe_in_root(rootfd, &cat->readers[i].exes[j], rd))
                                return &cat->readers[i];
        return NULL;
}

static int proc_start_time(pid_t pid, uint64_t *ret) {
        _cleanup_free_ char *stat = NULL;
        char path[64];
        const char *p;
        unsigned long long start;
        int r;

        snprintf(path, sizeof path, "/proc/" PID_FMT "/stat", pid);
        r = root_read_file("/", path, 4096, &stat);
        if (r < 0)
                return r;
        /* After the comm's closing parenthesis (the comm may hold one):
         * state is field 3, starttime field 22. */
        p = strrchr(stat, ')');
        if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                         &start) != 1)
                return -EIO;
        *ret = start;
        return 0;
}

/* argv from /proc/PID/cmdline: NUL-separated words. */
static int proc_argv(pid_t pid, char ***ret, size_t *ret_n) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_strv_free_ char **argv = NULL;
        char path[64];
        size_t len, n = 0;
        int r;

        snprintf(path, sizeof path, "/proc/" PID_FMT "/cmdline", pid);
        r = root_read_file_len("/", path, CMDLINE_MAX, &buf, &len);
        if (r < 0)
                return r;
        if (len == 0)
                return -ENODATA;        /* a zombie, or a kernel thread */
        for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
                r = strv_extend(&argv, buf + i);
                if (r < 0)
                        return r;
                n++;
        }
        *ret = TAKE_PTR(argv);
        *ret_n = n;
        return 0;
}

/* A regular file the process names, read without opening anything else:
 * found with O_PATH (opening a FIFO could block, a device could act, as
 * /dev/watchdog does), checked, then reopened through that very inode. */
static int read_in_root(pid_t pid, const char *path, char **ret) {
        _cleanup_close_ int rootfd = -1, pathfd = -1, fd = -1;
        char self[64];
        struct stat st;

        if (!path || path[0] != '/')
                return -EINVAL;         /* relative to a cwd we do not follow */
        rootfd = proc_root_open(pid);
        if (rootfd < 0)
                return rootfd;
        if (!same_root(rootfd) && root_may_block(pid, rootfd))
                return -EWOULDBLOCK;    /* counts: the safe side */
        pathfd = open_in_root(rootfd, path);
        if (pathfd < 0)
                return pathfd;
        if (fstat(pathfd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if (st.st_size > CONFIG_MAX)
                return -EFBIG;
        snprintf(self, sizeof self, "/proc/self/fd/%d", pathfd);
        fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        return fd_read_all(fd, CONFIG_MAX, ret, NULL);
}

/* Judges file f of entry k for a live process, from its own facts. */
static bool judge_live(const KnownFile *f, pid_t pid, char *why, size_t size) {
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *config = NULL;
        KnownFacts facts = {};
        int r;

        r = proc_argv(pid, &argv, &facts.argc);
        if (r < 0)
                log_debug_errno(r, "Cannot read the command line of reader " PID_FMT ": %m", pid);
        facts.argv = argv;
        if (f->config) {
                facts.config_path = known_file_config_path(f, argv, facts.argc);
                r = read_in_root(pid, facts.config_path, &config);
                facts.config_error = r < 0 ? r : 0;
                facts.config_text = config;
        }
        return known_file_counts(f, &facts, why, size);
}

/* starttime (clock ticks since boot) as seconds since the epoch. */
static uint64_t began_from_start(uint64_t start) {
        uint64_t realtime = now_usec(CLOCK_REALTIME), since_boot = now_usec(CLOCK_BOOTTIME);
        long hz = sysconf(_SC_CLK_TCK);

        if (hz <= 0 || realtime < since_boot)
                return 0;
        return (realtime - since_boot) / USEC_PER_SEC + start / (uint64_t) hz;
}

/* The verdict made for this process: alive, the one of its pid and start
 * time; gone, the one of its pid, uid and start (a second apart at most:
 * ac_btime is whole seconds and rounds differently). */
static KnownCacheEntry *cache_find(KnownCache *c, const KnownRead *rd, bool have_start, uint64_t start,
                                   size_t reader, size_t file) {
        for (size_t i = 0; i < KNOWN_CACHE_MAX; i++) {
                KnownCacheEntry *e = &c->entries[i];

                if (e->pid != rd->pid || rd->pid <= 0 || e->reader != reader || e->file != file)
                        continue;
                if (rd->has_uid && e->has_uid && e->uid != rd->uid)
                        continue;
                if (have_start ? e->start == start
                               : rd->has_uid && e->has_uid && rd->began > 0 && e->began > 0 &&
                                         (e->began > rd->began ? e->began - rd->began : rd->began - e->began) <= 1)
                        return e;
        }
        return NULL;
}

void known_judge(const Catalogue *cat, KnownCache *cache, const KnownRead *rd, KnownVerdict *ret) {
        const KnownReader *k;
        const KnownFile *f;
        KnownCacheEntry *e;
        size_t ki, fi;
        uint64_t start = 0;
        bool have_start;

        *ret = (KnownVerdict) { .counts = true };
        k = cat ? find_reader(cat, rd) : NULL;
        if (!k)
                return;
        ret->reader = k;
        f = known_reader_file(k, rd->path);
        if (!f) {
                format_to(ret->why, sizeof ret->why, "counts: %s", k->counts ?: "its entry exempts no reads of this file");
                format_to(ret->source, sizeof ret->source, "%s", k->source);
                return;
        }
        format_to(ret->source, sizeof ret->source, "%s:%u", k->source, f->line);
        if (!f->arg && !f->config) {
                ret->counts = false;
                format_to(ret->why, sizeof ret->why, "known %s: %s", k->name, f->why);
                return;
        }

        ki = (size_t) (k - cat->readers);
        fi = (size_t) (f - k->files);
        have_start = rd->alive && rd->pid > 0 && proc_start_time(rd->pid, &start) >= 0;
        /* A process gone before we looked: its verdict from an earlier read,
         * if it had one; otherwise nothing can be checked, and it counts. */
        e = cache_find(cache, rd, have_start, start, ki, fi);
        if (!e && !have_start) {
                format_to(ret->why, sizeof ret->why, "counts: gone before its command line could be checked");
                return;
        }
        if (!e) {
                e = &cache->entries[cache->next];
                cache->next = (cache->next + 1) % KNOWN_CACHE_MAX;
                *e = (KnownCacheEntry) { .pid = rd->pid, .start = start, .began = began_from_start(start),
                                         .has_uid = rd->has_uid, .uid = rd->uid, .reader = ki, .file = fi };
                e->counts = judge_live(f, rd->pid, e->why, sizeof e->why);
        }
        ret->counts = e->counts;
        if (e->counts)
                format_to(ret->why, sizeof ret->why, "%s", e->why);
        else
                format_to(ret->why, sizeof ret->why, "known %s: %s", k->name, e->why);
}
