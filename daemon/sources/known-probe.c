/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Judging a read by the catalogue on the daemon's loop (known_judge()):
 * by the binary on our root, or by a verdict kept from a look into the
 * process (known-inspect.c), per process and exec; a look is asked for
 * where none is kept. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "known-probe.h"
#include "log.h"
#include "macro.h"
#include "readers.h"
#include "strutil.h"
#include "time-util.h"

/* Texts are cut where they would overflow: they are for people. */
_printf_(3, 4)
static void format_to(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, size, fmt, ap);
        va_end(ap);
}

void known_cache_clear(KnownCache *c) {
        unsigned generation = c->generation + 1;

        /* The two mount namespaces whose root is ours do not change: told
         * here, not on each read. */
        memset(c, 0, sizeof *c);        /* large: no temporary copy */
        c->generation = generation;
        c->file_verdict_usec = KNOWN_FILE_VERDICT_USEC;
        c->own_mntns = process_ns(0, "mnt");
        c->init_mntns = process_ns(1, "mnt");
}

/* ---- on the loop: nothing inside another process's root ---- */

/* Whether the process sees the root we do: the mount namespace of ours or
 * of pid 1 (ours may be a private copy: PrivateMounts=), not chrooted. Its
 * binary was then judged by what stat() on our root says. Told by the
 * kernel's names alone: nothing is asked of its root's file system. */
static bool process_in_our_root(const KnownCache *c, pid_t pid) {
        char path[64], target[8];
        uint64_t ns = process_ns(pid, "mnt");
        ssize_t n;

        if (ns == 0 || (ns != c->own_mntns && ns != c->init_mntns))
                return false;
        snprintf(path, sizeof path, "/proc/" PID_FMT "/root", pid);
        n = readlink(path, target, sizeof target);
        return n == 1 && target[0] == '/';
}

/* Whether a binary is the catalogue's file e, by device and inode as
 * stat() on our root sees it. Never by comm. */
static bool host_file_is(const KnownExe *e, uint64_t dev, uint64_t ino) {
        struct stat st;

        /* As loaded (a process still running a binary an upgrade
         * replaced), or as it is now (a package installed or upgraded
         * since). */
        if (e->has_id && e->dev == dev && e->ino == ino)
                return true;
        return stat(e->path, &st) >= 0 && S_ISREG(st.st_mode) && (uint64_t) st.st_dev == dev &&
               (uint64_t) st.st_ino == ino;
}

static bool host_file_among(const KnownExe *list, size_t n, uint64_t dev, uint64_t ino) {
        for (size_t i = 0; i < n; i++)
                if (host_file_is(&list[i], dev, ino))
                        return true;
        return false;
}

bool known_is_child(const Catalogue *cat, uint64_t exe_dev, uint64_t exe_ino) {
        for (size_t i = 0; cat && i < cat->n; i++)
                if (host_file_among(cat->readers[i].children, cat->readers[i].n_children, exe_dev, exe_ino))
                        return true;
        return false;
}

/* The entry whose executable the reader runs; SIZE_MAX if none. */
static size_t find_on_host(const Catalogue *cat, const KnownRead *rd) {
        if (!rd->has_exe_id)
                return SIZE_MAX;
        for (size_t i = 0; i < cat->n; i++)
                if (host_file_among(cat->readers[i].exes, cat->readers[i].n_exes, rd->exe_dev, rd->exe_ino))
                        return i;
        return SIZE_MAX;
}

/* Whether the reader runs one of the catalogue's interpreters: which
 * script it runs is for a look to tell (its command line is its own). */
static bool interpreter_on_host(const Catalogue *cat, const KnownRead *rd) {
        if (!rd->has_exe_id)
                return false;
        for (size_t i = 0; i < cat->n; i++)
                if (host_file_among(cat->readers[i].interpreters, cat->readers[i].n_interpreters, rd->exe_dev,
                                    rd->exe_ino))
                        return true;
        return false;
}

/* starttime (clock ticks since boot) as seconds since the epoch. */
static uint64_t began_from_start(uint64_t start) {
        uint64_t realtime = now_usec(CLOCK_REALTIME), since_boot = now_usec(CLOCK_BOOTTIME);
        long hz = sysconf(_SC_CLK_TCK);

        if (hz <= 0 || realtime < since_boot)
                return 0;
        return (realtime - since_boot) / USEC_PER_SEC + start / (uint64_t) hz;
}

/* Running, and one exec of it: where both execs can be told, the same
 * one. An exec keeps the pid and start time but not the command line
 * (node_exporter may re-exec itself with a numa_* regex); a zombie shows
 * no image, and its last exec's verdict is the one kept. */
static bool same_image(const KnownCacheEntry *e, uint64_t image) {
        return e->image == 0 || image == 0 || e->image == image;
}

static bool same_process(const KnownCacheEntry *e, const KnownRead *rd, bool have_start, uint64_t start) {
        if (e->pid != rd->pid || rd->pid <= 0)
                return false;
        if (rd->has_uid && e->has_uid && e->uid != rd->uid)
                return false;
        /* Alive: by start time. Gone: by uid and start, a second apart at
         * most (ac_btime is whole seconds and rounds differently). */
        if (have_start)
                return e->start == start;
        return rd->has_uid && e->has_uid && rd->began > 0 && e->began > 0 &&
               (e->began > rd->began ? e->began - rd->began : rd->began - e->began) <= 1;
}

/* The verdict made for this process: of entry reader and file, or with
 * reader SIZE_MAX any that names its entry (or that it has none). */
/* The ways a pid's verdicts may be in. */
static KnownCacheEntry *cache_set(KnownCache *c, pid_t pid) {
        /* Fibonacci hashing, the top bits: pids come in runs, and a run is
         * spread evenly over the sets. */
        uint32_t h = (uint32_t) pid * UINT32_C(2654435769);

        return &c->entries[(h >> (32 - KNOWN_CACHE_SETS_BITS)) * KNOWN_CACHE_WAYS];
}

/* Forgets e: a verdict on an exec the process has left, which no later
 * read of it (alive or named from its exit record) may be judged by. */
static void cache_forget(KnownCacheEntry *e) {
        *e = (KnownCacheEntry) {};
}

static KnownCacheEntry *cache_find(KnownCache *c, const KnownRead *rd, bool have_start, uint64_t start,
                                   uint64_t image, size_t reader, size_t file) {
        KnownCacheEntry *set = cache_set(c, rd->pid);

        for (size_t i = 0; i < KNOWN_CACHE_WAYS; i++) {
                KnownCacheEntry *e = &set[i];

                if (!same_process(e, rd, have_start, start))
                        continue;
                if (have_start && !same_image(e, image)) {
                        cache_forget(e);
                        continue;
                }
                /* A live process whose file may have changed: look again.
                 * A gone one keeps its last verdict (nothing to look at). */
                if (have_start && e->expires != 0 && now_usec(CLOCK_MONOTONIC) >= e->expires)
                        continue;
                if (reader == SIZE_MAX || (e->reader == reader && e->file == file))
                        return e;
        }
        return NULL;
}

void known_cache_store(KnownCache *c, const KnownAsk *a, const KnownAnswer *ans) {
        KnownCacheEntry *e, *set;

        if (a->generation != c->generation)
                return;         /* made with a catalogue since replaced */
        e = set = cache_set(c, a->pid);
        for (size_t i = 1; i < KNOWN_CACHE_WAYS; i++)
                if (set[i].stored < e->stored)
                        e = &set[i];    /* a free one (0) or the oldest */
        *e = (KnownCacheEntry) { .pid = a->pid, .start = a->start, .image = a->image,
                                 .began = began_from_start(a->start),
                                 .has_uid = a->has_uid, .uid = a->uid, .reader = ans->reader, .file = ans->file,
                                 .counts = ans->counts, .stored = ++c->stores };
        /* A look that failed (too slow on a loaded host) is not the last
         * word on a process that may run for months (munin-node), nor is
         * a file it read. Its command line is: node_exporter's verdict
         * stands while it runs, and its reads never wait on a look again
         * (under TCG a look took longer than a read's patience, and the
         * read counted). */
        if (ans->failed || ans->from_files)
                e->expires = now_usec(CLOCK_MONOTONIC) + c->file_verdict_usec;
        format_to(e->why, sizeof e->why, "%s", ans->why);
        format_to(e->looked, sizeof e->looked, "%s", ans->looked);
}

static void ask_for(KnownVerdict *ret, const KnownCache *cache, const Catalogue *cat, const KnownRead *rd,
                    uint64_t start, uint64_t image, size_t reader, size_t file) {
        KnownAsk *a = &ret->ask;

        /* Compared whole to join a lookup under way: no stray bytes. */
        memset(a, 0, sizeof *a);
        a->cat = cat;
        a->generation = cache->generation;
        a->pid = rd->pid;
        a->start = start;
        a->image = image;
        a->has_uid = rd->has_uid;
        a->uid = rd->uid;
        a->reader = reader;
        a->file = file;
        a->exe_dev = rd->exe_dev;
        a->exe_ino = rd->exe_ino;
        format_to(a->path, sizeof a->path, "%s", rd->path ?: "");
        ret->pending = true;
        format_to(ret->why, sizeof ret->why, "counts: %s", reader == SIZE_MAX ? "its root not looked into yet"
                                                                             : "its command line not checked yet");
}

/* The verdict of entry ki on a read its generic child made, the ancestry
 * having found ki's program (the ancestor a) above it: ki's section for the
 * file. A condition of it (on the program's command line, configuration
 * or environment) is the program's: its verdict as a look into it found,
 * or a look is asked for. */
static void judge_as_child(const Catalogue *cat, KnownCache *cache, size_t ki, const KnownRead *rd,
                           const KnownAncestor *a, KnownVerdict *ret) {
        const KnownReader *k = &cat->readers[ki];
        const KnownFile *f = known_reader_file(k, rd->path);
        KnownRead ard = { .pid = a->pid, .alive = a->alive, .has_uid = a->has_uid, .uid = a->uid,
                          .has_exe_id = a->has_exe_id, .exe_dev = a->exe_dev, .exe_ino = a->exe_ino,
                          .path = rd->path };
        uint64_t start = 0, image = 0;
        KnownCacheEntry *e;
        bool have_start;
        size_t fi;

        *ret = (KnownVerdict) { .counts = true, .reader = k };
        if (!f) {
                format_to(ret->why, sizeof ret->why, "counts: run by %s, %s", k->name,
                          k->counts ?: "whose entry exempts no reads of this file");
                format_to(ret->source, sizeof ret->source, "%s", k->source);
                return;
        }
        format_to(ret->source, sizeof ret->source, "%s:%u", k->source, f->line);
        if (!known_file_conditional(f)) {
                ret->counts = false;
                format_to(ret->why, sizeof ret->why, "known %s (run by it): %s", k->name, f->why);
                return;
        }
        fi = (size_t) (f - k->files);
        have_start = a->alive && process_start_image(a->pid, &start, &image) >= 0;
        e = have_start ? cache_find(cache, &ard, true, start, image, ki, fi) : NULL;
        if (e) {
                ret->counts = e->counts;
                format_to(ret->looked, sizeof ret->looked, "%s", e->looked);
                if (e->counts)
                        format_to(ret->why, sizeof ret->why, "counts: run by %s, %s", k->name,
                                  startswith(e->why, "counts: ") ? e->why + strlen("counts: ") : e->why);
                else
                        format_to(ret->why, sizeof ret->why, "known %s (run by it): %s", k->name, f->why);
                return;
        }
        if (!have_start) {
                format_to(ret->why, sizeof ret->why,
                          "counts: run by %s, gone before its configuration could be checked", k->name);
                return;
        }
        ask_for(ret, cache, cat, &ard, start, image, ki, fi);
        format_to(ret->why, sizeof ret->why, "counts: run by %s, whose configuration is not checked yet", k->name);
}

/* A generic program (a shell, awk) that entry k names as its child= is
 * judged by k when, going up its ancestry, every process is one of k's
 * children until k's program: its binary, or one of its interpreters
 * running its script (a look says which; the processes of the same
 * interpreter below the first one known are forks of it: munin-node forks
 * one per connection). Returns true when it decided (ret set, maybe asking
 * for a look at the topmost ancestor not yet known); false: k is none of
 * its ancestry's, and the read counts as any other. */
/* Of the processes of k's interpreter between a reader and k's program
 * (whose exec is image), the topmost that is not a fork of the program: an
 * exec of its own (a plugin script run by the same interpreter) is another
 * program. A fork runs the program's exec: its arguments where the
 * program's are. NULL if all are forks; where that cannot be told (no
 * image), each is looked into, which tells. */
static const KnownAncestor *exec_between(const KnownAncestor *const *between, const uint64_t *images, size_t n,
                                         uint64_t image) {
        for (size_t j = n; j > 0; j--)
                if (images[j - 1] == 0 || image == 0 || images[j - 1] != image)
                        return between[j - 1];
        return NULL;
}

static bool judge_by_ancestry(const Catalogue *cat, KnownCache *cache, const KnownRead *rd, KnownVerdict *ret) {
        for (size_t i = 0; i < cat->n; i++) {
                const KnownReader *k = &cat->readers[i];
                /* The processes of k's interpreter above the reader not
                 * looked into yet, lowest first, with their execs; and the
                 * topmost of the first ones that run one exec (a program
                 * and its forks): the one to look into. */
                const KnownAncestor *between[KNOWN_ANCESTRY_MAX], *unknown = NULL;
                uint64_t between_images[KNOWN_ANCESTRY_MAX], run_image = 0;
                size_t n_between = 0;
                bool run_open = true;

                if (!host_file_among(k->children, k->n_children, rd->exe_dev, rd->exe_ino))
                        continue;
                for (size_t d = 0; d < rd->n_ancestors; d++) {
                        const KnownAncestor *a = &rd->ancestors[d], *other;
                        KnownRead ard = { .pid = a->pid, .alive = a->alive, .has_uid = a->has_uid, .uid = a->uid };
                        KnownCacheEntry *e;
                        uint64_t start = 0, image = 0;
                        bool have_start;

                        if (!a->has_exe_id)
                                break;
                        if (n_between == 0 && host_file_among(k->children, k->n_children, a->exe_dev, a->exe_ino))
                                continue;
                        if (n_between == 0 && host_file_among(k->exes, k->n_exes, a->exe_dev, a->exe_ino))
                                return judge_as_child(cat, cache, i, rd, a, ret), true;
                        if (!host_file_among(k->interpreters, k->n_interpreters, a->exe_dev, a->exe_ino) ||
                            (n_between > 0 &&
                             (between[0]->exe_dev != a->exe_dev || between[0]->exe_ino != a->exe_ino))) {
                                log_debug("Reader " PID_FMT ": its ancestor " PID_FMT " is not %s's (binary %" PRIu64
                                          ":%" PRIu64 ").",
                                          rd->pid, a->pid, k->name, a->exe_dev, a->exe_ino);
                                break;
                        }
                        have_start = a->alive && process_start_image(a->pid, &start, &image) >= 0;
                        e = cache_find(cache, &ard, have_start, start, image, SIZE_MAX, 0);
                        if (e) {
                                /* Looked into: those between are its forks,
                                 * or programs of their own to look into. */
                                other = exec_between(between, between_images, n_between, image);
                                if (!other && e->reader == i)
                                        return judge_as_child(cat, cache, i, rd, a, ret), true;
                                unknown = other;
                                break;
                        }
                        if (!have_start)
                                break;
                        if (n_between == 0 || (run_open && image != 0 && image == run_image))
                                unknown = a;
                        else
                                run_open = false;
                        run_image = n_between == 0 ? image : run_image;
                        between[n_between] = a;
                        between_images[n_between++] = image;
                }
                if (!unknown) {
                        log_debug("Reader " PID_FMT ": no program of %s above it (%zu ancestors).", rd->pid, k->name,
                                  rd->n_ancestors);
                        return false;
                }
                {
                        KnownRead ard = { .pid = unknown->pid, .alive = true, .has_uid = unknown->has_uid,
                                          .uid = unknown->uid, .has_exe_id = true, .exe_dev = unknown->exe_dev,
                                          .exe_ino = unknown->exe_ino, .path = rd->path };
                        uint64_t start, image;

                        if (process_start_image(unknown->pid, &start, &image) < 0)
                                return false;
                        ask_for(ret, cache, cat, &ard, start, image, SIZE_MAX, SIZE_MAX);
                        format_to(ret->why, sizeof ret->why, "counts: the program that ran it not looked into yet");
                        return true;
                }
        }
        return false;
}

void known_judge(const Catalogue *cat, KnownCache *cache, const KnownRead *rd, KnownVerdict *ret) {
        bool alive = rd->alive && rd->pid > 0, have_start;
        const KnownReader *k;
        const KnownFile *f;
        KnownCacheEntry *e;
        uint64_t start = 0, image = 0;
        size_t ki, fi;

        *ret = (KnownVerdict) { .counts = true };
        if (!cat)
                return;
        ki = find_on_host(cat, rd);
        if (ki == SIZE_MAX && rd->n_ancestors > 0 && judge_by_ancestry(cat, cache, rd, ret))
                return;
        if (ki == SIZE_MAX && alive && process_in_our_root(cache, rd->pid) && !interpreter_on_host(cat, rd))
                return;         /* our root's binary is no entry's, nor an interpreter of one */
        if (ki == SIZE_MAX && !alive && !rd->began)
                return;
        have_start = alive && process_start_image(rd->pid, &start, &image) >= 0;
        if (ki == SIZE_MAX) {
                /* Inside a root of its own: what a look there found. */
                e = cache_find(cache, rd, have_start, start, image, SIZE_MAX, 0);
                if (!e && have_start)
                        return ask_for(ret, cache, cat, rd, start, image, SIZE_MAX, SIZE_MAX);
                if (!e || e->reader >= cat->n)
                        return;
                ki = e->reader;
        }
        k = &cat->readers[ki];
        ret->reader = k;
        f = known_reader_file(k, rd->path);
        if (!f) {
                format_to(ret->why, sizeof ret->why, "counts: %s", k->counts ?: "its entry exempts no reads of this file");
                format_to(ret->source, sizeof ret->source, "%s", k->source);
                return;
        }
        format_to(ret->source, sizeof ret->source, "%s:%u", k->source, f->line);
        if (!known_file_conditional(f)) {
                ret->counts = false;
                format_to(ret->why, sizeof ret->why, "known %s: %s", k->name, f->why);
                return;
        }

        fi = (size_t) (f - k->files);
        /* A process gone before we looked: its verdict from an earlier read,
         * if it had one; otherwise nothing can be checked, and it counts. */
        e = cache_find(cache, rd, have_start, start, image, ki, fi);
        if (!e && !have_start) {
                format_to(ret->why, sizeof ret->why, "counts: gone before its command line could be checked");
                return;
        }
        if (!e)
                return ask_for(ret, cache, cat, rd, start, image, ki, fi);
        ret->counts = e->counts;
        format_to(ret->looked, sizeof ret->looked, "%s", e->looked);
        if (e->counts)
                format_to(ret->why, sizeof ret->why, "%s", e->why);
        else
                format_to(ret->why, sizeof ret->why, "known %s: %s", k->name, f->why);
}
