/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* asprintf() */
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "known-load.h"
#include "macro.h"
#include "strutil.h"

#ifndef KNOWN_READERS_ETC_DIR
#define KNOWN_READERS_ETC_DIR "/etc/numastatd/readers.d"
#endif
#ifndef KNOWN_READERS_LIB_DIR
#define KNOWN_READERS_LIB_DIR "/usr/lib/numastatd/readers.d"
#endif
/* An entry is a few hundred bytes; this bounds what a stray file costs. */
#define ENTRY_SIZE_MAX (64 * 1024)
#define ENTRIES_MAX 256

/* The source tree's catalogue when the daemon runs from its build tree:
 * the build writes its path to CATALOGUE_UNINSTALLED_MARKER beside the
 * daemon (as pkg-config's -uninstalled files do); make install copies no
 * such file. */
static int uninstalled_catalogue(const char *exe_dir, char **ret) {
        _cleanup_free_ char *marker = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char line[PATH_MAX + 2];

        *ret = NULL;
        if (!exe_dir || asprintf(&marker, "%s/" CATALOGUE_UNINSTALLED_MARKER, exe_dir) < 0)
                return exe_dir ? -ENOMEM : 0;
        f = fopen(marker, "re");
        if (!f)
                return 0;
        if (!fgets(line, sizeof line, f))
                return 0;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] != '/')
                return 0;       /* relative would depend on the cwd */
        *ret = strdup(line);
        return *ret ? 0 : -ENOMEM;
}

int catalogue_dirs_for(const char *path, const char *exe_dir, char ***ret) {
        _cleanup_strv_free_ char **l = NULL;
        _cleanup_free_ char *copy = NULL, *uninstalled = NULL;
        char *save = NULL;
        int r;

        if (!path) {
                r = uninstalled_catalogue(exe_dir, &uninstalled);
                if (r < 0)
                        return r;
                if (asprintf(&copy, "%s:%s", KNOWN_READERS_ETC_DIR, uninstalled ?: KNOWN_READERS_LIB_DIR) < 0)
                        return -ENOMEM;
        } else if (!(copy = strdup(path)))
                return -ENOMEM;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
                if (d[0] != '/')
                        continue;       /* relative entries would depend on the cwd */
                r = strv_extend(&l, d);
                if (r < 0)
                        return r;
        }
        if (!l && strv_extend(&l, "/nonexistent") < 0)     /* an empty path: no catalogue */
                return -ENOMEM;
        *ret = TAKE_PTR(l);
        return 0;
}

int catalogue_dirs(char ***ret) {
        /* The daemon's own executable, not the observed system's: --root
         * does not apply. */
        _cleanup_free_ char *exe = realpath("/proc/self/exe", NULL);
        char *slash = exe ? strrchr(exe, '/') : NULL;

        if (slash)
                *slash = '\0';
        return catalogue_dirs_for(getenv("NUMASTATD_KNOWN_READERS_PATH"), slash ? exe : NULL, ret);
}

static bool is_entry_name(const char *n) {
        size_t l = strlen(n);

        return l > 5 && n[0] != '.' && streq(n + l - 5, ".conf");
}

static int compare_names(const void *a, const void *b) {
        return strcmp(*(char * const *) a, *(char * const *) b);
}

/* Every NAME.conf in dirs, each name once, sorted. A directory that is
 * there but cannot be read is no error either: it goes to *unreadable as
 * "DIR: why", for the status to show. */
static int collect_names(char * const *dirs, char ***ret, char ***unreadable) {
        _cleanup_strv_free_ char **names = NULL;
        int r;

        for (char * const *d = dirs; *d; d++) {
                DIR *dir = opendir(*d);
                struct dirent *de;

                if (!dir) {
                        char *why;

                        if (errno == ENOENT)
                                continue;       /* a missing directory is no error */
                        if (asprintf(&why, "%s: %s", *d, strerror(errno)) < 0)
                                return -ENOMEM;
                        r = strv_push(unreadable, why);
                        if (r < 0)
                                return r;
                        continue;
                }
                while ((de = readdir(dir))) {
                        bool seen = false;

                        if (!is_entry_name(de->d_name))
                                continue;
                        for (char **n = names; n && *n; n++)
                                seen = seen || streq(*n, de->d_name);
                        if (seen)
                                continue;
                        if (strv_length(names) >= ENTRIES_MAX) {
                                closedir(dir);
                                return -E2BIG;
                        }
                        r = strv_extend(&names, de->d_name);
                        if (r < 0) {
                                closedir(dir);
                                return r;
                        }
                }
                closedir(dir);
        }
        if (names)
                qsort(names, strv_length(names), sizeof *names, compare_names);
        *ret = TAKE_PTR(names);
        return 0;
}

static void resolve_paths(KnownExe *list, size_t n) {
        for (size_t i = 0; i < n; i++) {
                struct stat st;

                /* Not installed here (another distribution's path, or a
                 * container image's): matched inside a process's root only. */
                list[i].has_id = stat(list[i].path, &st) >= 0 && S_ISREG(st.st_mode);
                if (list[i].has_id) {
                        list[i].dev = (uint64_t) st.st_dev;
                        list[i].ino = (uint64_t) st.st_ino;
                }
        }
}

static void resolve_exes(KnownReader *k) {
        resolve_paths(k->exes, k->n_exes);
        resolve_paths(k->scripts, k->n_scripts);
        resolve_paths(k->interpreters, k->n_interpreters);
        resolve_paths(k->children, k->n_children);
}

/* Loads the entry NAME from the first directory that has it. */
static int load_entry(char * const *dirs, const char *name, Catalogue *c, char **ret_error) {
        for (char * const *d = dirs; *d; d++) {
                _cleanup_free_ char *path = NULL, *stem = NULL;
                _cleanup_fclose_ FILE *f = NULL;
                KnownReader k = {}, *a;
                struct stat st;
                int r;

                if (asprintf(&path, "%s/%s", *d, name) < 0)
                        return -ENOMEM;
                f = fopen(path, "re");
                if (!f) {
                        if (errno == ENOENT)
                                continue;
                        r = -errno;
                        if (asprintf(ret_error, "%s: %s", path, strerror(-r)) < 0)
                                *ret_error = NULL;
                        return r;
                }
                if (fstat(fileno(f), &st) < 0)
                        return -errno;
                stem = strndup(name, strlen(name) - 5);
                if (!stem)
                        return -ENOMEM;
                if (S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_size == 0))
                        return strv_extend(&c->masked, stem);   /* masked, like a unit linked to /dev/null */
                if (!S_ISREG(st.st_mode) || st.st_size > ENTRY_SIZE_MAX) {
                        if (asprintf(ret_error, "%s: not a regular file of at most %d bytes", path,
                                     ENTRY_SIZE_MAX) < 0)
                                *ret_error = NULL;
                        return -EINVAL;
                }
                r = known_reader_parse(f, path, stem, &k, ret_error);
                if (r < 0)
                        return r;
                resolve_exes(&k);
                a = reallocarray(c->readers, c->n + 1, sizeof *a);
                if (!a) {
                        known_reader_done(&k);
                        return -ENOMEM;
                }
                c->readers = a;
                c->readers[c->n++] = k;
                return 0;
        }
        return 0;
}

int catalogue_load(char * const *dirs, Catalogue *ret, char **ret_error) {
        _cleanup_(catalogue_done) Catalogue c = {};
        _cleanup_strv_free_ char **names = NULL;
        int r;

        if (ret_error)
                *ret_error = NULL;
        r = 0;
        for (char * const *d = dirs; r >= 0 && *d; d++)
                r = strv_extend(&c.dirs, *d);
        if (r >= 0)
                r = collect_names(dirs, &names, &c.unreadable);
        if (r < 0) {
                if (ret_error && asprintf(ret_error, "known readers: %s", strerror(-r)) < 0)
                        *ret_error = NULL;
                return r;
        }
        for (char **n = names; n && *n; n++) {
                _cleanup_free_ char *error = NULL;

                r = load_entry(dirs, *n, &c, &error);
                if (r < 0) {
                        if (ret_error)
                                *ret_error = TAKE_PTR(error);
                        return r;
                }
        }
        *ret = c;
        c = (Catalogue) {};
        return 0;
}
