/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The look into a reader's process, in the inspector's child, as the
 * reader (known_inspect()): which entry its binary or script is inside its
 * root, and what its command line, environment and the files they name
 * say by the entry's conditions. Nothing here runs on the daemon's loop;
 * known-probe.c asks for it and keeps the answer. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "known-probe.h"
#include "known-root.h"
#include "log.h"
#include "macro.h"
#include "resolve.h"
#include "rootfs.h"
#include "strutil.h"

#define CMDLINE_MAX (64 * 1024)

/* ---- in the inspector's child, as the reader ---- */

/* Whether lookups in the process's root could wait on a FUSE server (its
 * root is FUSE, or cannot be told to be another) or would look into the
 * kernel's own files. */
static bool root_refused(const InspectedProcess *p) {
        if (inspected_root_may_block(p))
                return true;
        return p->root_magic != 0 ? pseudo_fs((long) p->root_magic) : on_pseudo_fs(p->rootfd);
}

static bool exe_in_root(int rootfd, const KnownExe *e, const KnownAsk *a) {
        _cleanup_close_ int fd = open_in_root(rootfd, e->path);
        struct stat st;

        return fd >= 0 && fstat(fd, &st) >= 0 && S_ISREG(st.st_mode) && (uint64_t) st.st_dev == a->exe_dev &&
               (uint64_t) st.st_ino == a->exe_ino;
}

/* The entry whose executable the process runs at the entry's path inside
 * its root (a container's); SIZE_MAX if none. */
static size_t find_in_root(const Catalogue *cat, int rootfd, const KnownAsk *a) {
        for (size_t i = 0; i < cat->n; i++)
                for (size_t j = 0; j < cat->readers[i].n_exes; j++)
                        if (exe_in_root(rootfd, &cat->readers[i].exes[j], a))
                                return i;
        return SIZE_MAX;
}

/* argv from /proc/PID/cmdline: NUL-separated words (from its start:
 * the script's match and the file's judgement each read it). */
static int read_argv(int fd, char ***ret, size_t *ret_n) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_strv_free_ char **argv = NULL;
        size_t len, n = 0;
        int r;

        if (fd < 0)
                return -EBADF;
        r = fd_pread_all(fd, CMDLINE_MAX, &buf, &len);
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

static bool same_file_in_root(int rootfd, const char *path, const struct stat *st) {
        _cleanup_close_ int fd = open_in_root(rootfd, path);
        struct stat s;

        return fd >= 0 && fstat(fd, &s) >= 0 && S_ISREG(s.st_mode) && s.st_dev == st->st_dev &&
               s.st_ino == st->st_ino;
}

/* The entry whose script the process runs, as one of the entry's
 * interpreters: the first script argument, absolute, found in its root,
 * is the entry's script there (device and inode). SIZE_MAX if none: a
 * relative script, or a command line not read, is no entry's. */
static size_t find_script_in_root(const Catalogue *cat, const InspectedProcess *p, const KnownAsk *a) {
        _cleanup_strv_free_ char **argv = NULL;
        size_t n = 0;

        for (size_t i = 0; i < cat->n; i++) {
                const KnownReader *k = &cat->readers[i];

                for (size_t j = 0; j < k->n_interpreters; j++) {
                        _cleanup_close_ int fd = -1;
                        struct stat st;
                        int s;

                        if (!exe_in_root(p->rootfd, &k->interpreters[j], a))
                                continue;
                        if (!argv && read_argv(p->cmdlinefd, &argv, &n) < 0)
                                return SIZE_MAX;
                        s = script_argument(script_syntax_of(k->interpreters[j].path), argv, n);
                        if (s < 0 || argv[s][0] != '/')
                                break;
                        fd = open_in_root(p->rootfd, argv[s]);
                        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                                break;
                        for (size_t l = 0; l < k->n_scripts; l++)
                                if (same_file_in_root(p->rootfd, k->scripts[l].path, &st))
                                        return i;
                        break;
                }
        }
        return SIZE_MAX;
}


/* The process's environment, one variable a line (a newline inside a
 * value starts a line of its own: only more to match). */
static int read_environ(int fd, char **ret) {
        size_t n;
        int r;

        if (fd < 0)
                return -EBADF;
        r = fd_read_all(fd, CONFIG_MAX, ret, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if ((*ret)[i] == '\0')
                        (*ret)[i] = '\n';
        return 0;
}

typedef struct RootRead {
        int rootfd;
        bool refused;
} RootRead;

static int read_arg_file(const char *path, char **ret, void *userdata) {
        const RootRead *rr = userdata;

        return rr->refused ? -EWOULDBLOCK : read_in_root(rr->rootfd, path, ret);
}

/* Whether kingpin would read a file of argv's ("@FILE"). */
static bool argv_names_file(char **argv) {
        for (char **a = argv; a && *a; a++)
                if ((*a)[0] == '@')
                        return true;
        return false;
}

/* Adds what was read to looked ("; "-separated), as far as it fits. */
static void looked_add(char *looked, size_t size, const char *fmt, ...) _printf_(3, 4);
static void looked_add(char *looked, size_t size, const char *fmt, ...) {
        size_t n = strlen(looked);
        va_list ap;

        if (n > 0 && n + 2 < size) {
                memcpy(looked + n, "; ", 3);
                n += 2;
        }
        va_start(ap, fmt);
        (void) vsnprintf(looked + n, size - n, fmt, ap);
        va_end(ap);
}

/* Judges file f for the process, from its own facts, as it runs now;
 * *ret_from_files: whether the verdict rests on files (its config, a
 * config directory, what is installed or absent, an @FILE it named),
 * which may change while it runs. One from its command line and
 * environment alone stands. looked: what it read, by the paths the
 * process named, for people. */
static bool judge_live(const KnownFile *f, const InspectedProcess *p, bool refused, bool *ret_from_files, char *why,
                       size_t size, char *looked, size_t looked_size) {
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *config = NULL, *config_dir = NULL, *environ_text = NULL, *beside = NULL;
        size_t files = 0;
        RootRead rr = { .rootfd = p->rootfd, .refused = refused };
        char unread[PATH_MAX];
        KnownFacts facts = {};
        const char *u = NULL;
        int r;

        r = read_argv(p->cmdlinefd, &argv, &facts.argc);
        if (r < 0)
                log_debug_errno(r, "Cannot read the command line of reader " PID_FMT ": %m", p->pid);
        else
                looked_add(looked, looked_size, "its command line");
        *ret_from_files = f->config || f->config_dir || f->config_dir_arg || f->absent || f->installed ||
                          (f->arg_files && (!argv || argv_names_file(argv)));
        /* Kingpin reads "@FILE" as more arguments: as the process would. */
        if (argv && f->arg_files && argv_names_file(argv))
                looked_add(looked, looked_size, "the @FILEs it names");
        if (argv && f->arg_files && known_expand_arg_files(&argv, &facts.argc, read_arg_file, &rr, &u) < 0) {
                (void) snprintf(unread, sizeof unread, "%s", u ?: "?");
                facts.arg_file_unread = unread;
                argv = strv_free(argv);
        }
        facts.argv = argv;
        facts.config_path = known_file_config_path(f, argv, facts.argc);
        if (facts.config_path) {
                r = refused ? -EWOULDBLOCK : read_in_root(p->rootfd, facts.config_path, &config);
                if (!refused)
                        looked_add(looked, looked_size, "%s as its configuration%s", facts.config_path,
                                   r < 0 ? " (unread)" : "");
                facts.config_error = r < 0 ? r : 0;
                facts.config_text = config;
        }
        facts.config_dir_path = known_file_config_dir(f, argv, facts.argc);
        if (facts.config_dir_path && f->config_dir_beside) {
                /* The config file's directory, what its relative names
                 * mean to the program; none for a relative config (the
                 * file itself cannot be read then either). */
                const char *slash = strrchr(facts.config_dir_path, '/');

                beside = facts.config_dir_path[0] == '/'
                                 ? strndup(facts.config_dir_path, MAX(slash - facts.config_dir_path, (ptrdiff_t) 1))
                                 : NULL;
                facts.config_dir_path = beside;
        }
        if (facts.config_dir_path) {
                r = refused ? -EWOULDBLOCK : read_dir_in_root(p->rootfd, f, facts.config_dir_path, &config_dir, &files);
                if (r < 0)
                        log_debug_errno(r, "Cannot read the configuration directory of reader " PID_FMT ": %m", p->pid);
                if (!refused) {
                        char how[32] = "unread";

                        if (r >= 0)
                                (void) snprintf(how, sizeof how, "%zu file%s", files, files == 1 ? "" : "s");
                        looked_add(looked, looked_size, "%s as its configuration directory (%s)",
                                   facts.config_dir_path, how);
                }
                facts.config_dir_text = config_dir;
        }
        if (f->absent && refused)
                facts.absent_unread = f->absent[0];
        else
                absent_in_root(p->rootfd, f, &facts.absent_found, &facts.absent_unread);
        if (f->installed) {
                facts.installed_result = refused ? -EWOULDBLOCK : installed_in_root(p->rootfd, f);
                if (facts.installed_result < 0)
                        log_debug_errno(facts.installed_result, "Cannot tell what is installed for reader " PID_FMT ": %m",
                                        p->pid);
        }
        if (f->absent && !refused)
                looked_add(looked, looked_size, "its root for %s%s", f->absent[0], f->absent[1] ? " and more" : "");
        if (f->installed && !refused)
                looked_add(looked, looked_size, "%s against %s", f->installed, f->installed_list);
        if ((f->environ_forbids || f->config_environment) && read_environ(p->environfd, &environ_text) >= 0) {
                facts.environ_text = environ_text;
                looked_add(looked, looked_size, "its environment");
        }
        return known_file_counts(f, &facts, why, size);
}

int known_inspect(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                  size_t *n_fds) {
        const KnownAsk *a = request;
        KnownAnswer *ans = answer;
        const KnownReader *k;
        const KnownFile *f;
        bool refused;

        if (size < sizeof *ans || !a->cat)
                return -EINVAL;
        known_root_look_at(p);
        *ans = (KnownAnswer) { .reader = a->reader, .file = SIZE_MAX, .counts = true };
        refused = root_refused(p);
        if (ans->reader == SIZE_MAX) {
                if (refused)
                        return 0;       /* not known: it counts */
                ans->reader = find_in_root(a->cat, p->rootfd, a);
                if (ans->reader == SIZE_MAX)
                        ans->reader = find_script_in_root(a->cat, p, a);
                if (ans->reader == SIZE_MAX)
                        return 0;
        }
        if (ans->reader >= a->cat->n)
                return -EINVAL;
        k = &a->cat->readers[ans->reader];
        f = known_reader_file(k, a->path);
        if (!f)
                return 0;
        ans->file = (size_t) (f - k->files);
        if (!known_file_conditional(f))
                ans->counts = false;
        else
                ans->counts = judge_live(f, p, refused, &ans->from_files, ans->why, sizeof ans->why, ans->looked,
                                         sizeof ans->looked);
        return 0;
}
