/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <dirent.h>
#include <fnmatch.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "known-probe.h"
#include "log.h"
#include "macro.h"
#include "parsers.h"
#include "readers.h"
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
        unsigned generation = c->generation + 1;

        /* The two mount namespaces whose root is ours do not change: told
         * here, not on each read. */
        memset(c, 0, sizeof *c);        /* large: no temporary copy */
        c->generation = generation;
        c->file_verdict_usec = KNOWN_FILE_VERDICT_USEC;
        c->own_mntns = process_ns(0, "mnt");
        c->init_mntns = process_ns(1, "mnt");
}

/* The process this child looks into (one look, one process). */
static const InspectedProcess *looked_at;

/* Finds path inside the process's root (O_PATH): absolute links and ".."
 * stay in it, no magic links, and no mount is crossed (a FUSE mount a user
 * made could block the look), but those of the root's own file system
 * (systemd's ProtectSystem= binds /usr and /etc read-only over
 * themselves): the mount table says so of every directory on the path,
 * and what was found is on that file system. */
static int open_in_root(int rootfd, const char *path) {
        int flags = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, fd;
        struct statx root, found;

        fd = resolve_open_path(rootfd, path, flags | RESOLVE_NO_XDEV);
        if (fd != -EXDEV || !looked_at || rootfd != looked_at->rootfd ||
            statx(rootfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, 0, &root) < 0 ||
            !resolve_path_mounts_on(inspected_mountinfo(looked_at), root.stx_dev_major, root.stx_dev_minor, path))
                return fd;
        fd = resolve_open_path(rootfd, path, flags);
        if (fd >= 0 && (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, 0, &found) < 0 ||
                        found.stx_dev_major != root.stx_dev_major || found.stx_dev_minor != root.stx_dev_minor)) {
                close(fd);
                return -EXDEV;
        }
        return fd;
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

/* ---- in the inspector's child, as the reader ---- */

/* File systems that are not a root or a configuration a reader may name:
 * the kernel's own (a read of /proc/kmsg consumes it) and devices. */
static bool pseudo_fs(long magic) {
        static const long magics[] = {
                PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC, SECURITYFS_MAGIC, DEVPTS_SUPER_MAGIC,
                CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC, PSTOREFS_MAGIC, EFIVARFS_MAGIC, NSFS_MAGIC,
                SELINUX_MAGIC, SMACK_MAGIC, BINFMTFS_MAGIC, 0x65735543 /* fusectl */, 0x62656570 /* configfs */,
                0x1cd1 /* devtmpfs */,
        };

        for (size_t i = 0; i < ELEMENTSOF(magics); i++)
                if (magic == magics[i])
                        return true;
        return false;
}

static bool on_pseudo_fs(int fd) {
        struct statfs sfs;

        return fstatfs(fd, &sfs) < 0 || pseudo_fs((long) sfs.f_type);
}

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

/* A file or directory the process names, opened (flags) as the process
 * would (we are it now), without opening anything else: found with O_PATH
 * (opening a FIFO could block, a device could act, as /dev/watchdog does),
 * checked to be of type (S_IFREG, S_IFDIR), not on the kernel's own file
 * systems and, a regular file, not over max bytes, then reopened through
 * that very inode. */
static int open_checked_in_root_max(int rootfd, const char *path, mode_t type, int flags, off_t max) {
        _cleanup_close_ int pathfd = -1;
        char self[64];
        struct stat st;
        int fd;

        if (!path || path[0] != '/')
                return -EINVAL;         /* relative to a cwd we do not follow */
        pathfd = open_in_root(rootfd, path);
        if (pathfd < 0)
                return pathfd;
        if (fstat(pathfd, &st) < 0)
                return -errno;
        if ((st.st_mode & S_IFMT) != type || on_pseudo_fs(pathfd))
                return -EBADFD;
        if (type == S_IFREG && st.st_size > max)
                return -EFBIG;
        snprintf(self, sizeof self, "/proc/self/fd/%d", pathfd);
        fd = open(self, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        return fd < 0 ? -errno : fd;
}

static int open_checked_in_root(int rootfd, const char *path, mode_t type, int flags) {
        return open_checked_in_root_max(rootfd, path, type, flags, CONFIG_MAX);
}

static int read_in_root(int rootfd, const char *path, char **ret) {
        _cleanup_close_ int fd = open_checked_in_root(rootfd, path, S_IFREG, O_RDONLY);

        if (fd < 0)
                return fd;
        return fd_read_all(fd, CONFIG_MAX, ret, NULL);
}

/* A directory in the process's root, opened as open_checked_in_root()
 * opens one, to be read with readdir(). */
static int opendir_in_root(int rootfd, const char *path, DIR **ret) {
        int fd = open_checked_in_root(rootfd, path, S_IFDIR, O_RDONLY | O_DIRECTORY), r;

        if (fd < 0)
                return fd;
        *ret = fdopendir(fd);
        if (*ret)
                return 0;
        r = -errno;
        close(fd);
        return r;
}

#define CONFIG_DIR_FILES_MAX 64

/* The *.conf files of a directory the process names, one after another,
 * each read as read_in_root() reads a file (so, as the process); a
 * directory that does not exist has none. */
static int read_dir_in_root(int rootfd, const char *path, char **ret) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0, files = 0;
        struct dirent *de;
        DIR *d;
        int r;

        r = opendir_in_root(rootfd, path, &d);
        if (r == -ENOENT) {
                *ret = strdup("");
                return *ret ? 0 : -ENOMEM;
        }
        if (r < 0)
                return r;
        text = strdup("");
        while (text && (de = readdir(d))) {
                _cleanup_free_ char *file = NULL, *content = NULL;
                size_t l = strlen(de->d_name);
                char *n;

                if (de->d_name[0] == '.' || l < 5 || !streq(de->d_name + l - 5, ".conf"))
                        continue;
                if (++files > CONFIG_DIR_FILES_MAX || asprintf(&file, "%s/%s", path, de->d_name) < 0) {
                        closedir(d);
                        return files > CONFIG_DIR_FILES_MAX ? -E2BIG : -ENOMEM;
                }
                r = read_in_root(rootfd, file, &content);
                if (r < 0) {
                        closedir(d);
                        return r;
                }
                n = realloc(text, len + strlen(content) + 2);
                if (!n) {
                        closedir(d);
                        return -ENOMEM;
                }
                text = n;
                len += (size_t) sprintf(text + len, "%s\n", content);
        }
        closedir(d);
        if (!text)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}

/* Whether anything in the process's root matches one of the absent=
 * paths (a glob in the last component): *ret_found is that path; a
 * directory that cannot be read (but does not exist) sets *ret_unread. */
static void absent_in_root(int rootfd, const KnownFile *f, const char **ret_found, const char **ret_unread) {
        for (char **a = f->absent; a && *a && !*ret_found && !*ret_unread; a++) {
                _cleanup_free_ char *dir = strdup(*a);
                const char *pattern;
                struct dirent *de;
                char *slash;
                DIR *d;
                int r;

                if (!dir) {
                        *ret_unread = *a;
                        return;
                }
                slash = strrchr(dir, '/');
                *slash = '\0';
                pattern = slash + 1;
                r = opendir_in_root(rootfd, dir[0] ? dir : "/", &d);
                if (r == -ENOENT)
                        continue;
                if (r < 0) {
                        *ret_unread = *a;
                        return;
                }
                while ((de = readdir(d)))
                        if (de->d_name[0] != '.' && fnmatch(pattern, de->d_name, 0) == 0) {
                                *ret_found = *a;
                                break;
                        }
                closedir(d);
        }
}

#define INSTALLED_LIST_MAX (64 * 1024 * 1024)
#define INSTALLED_DIRS_MAX 8
#define INSTALLED_ENTRIES_MAX 8192

static int cmp_strp(const void *a, const void *b) {
        return strcmp(*(char * const *) a, *(char * const *) b);
}

/* Whether each entry of dir (its path below the installed root: rel,
 * "./embedded/lib/python3.12/site-packages") is a line of the list: 0
 * yes, 1 no, negative errno if either cannot be read. */
static int dir_listed(int rootfd, const char *dir, const char *rel, int listfd) {
        _cleanup_fclose_ FILE *list = NULL;
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *line = NULL;
        size_t n_names = 0, size = 0, read_total = 0, rel_len = strlen(rel), listed = 0;
        struct dirent *de;
        ssize_t l;
        DIR *d;
        int fd, r;

        r = opendir_in_root(rootfd, dir, &d);
        if (r < 0)
                return r;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..") && !streq(de->d_name, "__pycache__")) {
                        char *name = n_names < INSTALLED_ENTRIES_MAX ? strdup(de->d_name) : NULL;

                        if (!name || strv_push(&names, name) < 0) {
                                closedir(d);
                                return n_names >= INSTALLED_ENTRIES_MAX ? -E2BIG : -ENOMEM;
                        }
                        n_names++;
                }
        closedir(d);
        /* Its own reading of the list, from the start: one list, several dirs. */
        fd = fcntl(listfd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0 || !(list = fdopen(fd, "re"))) {
                if (fd >= 0)
                        close(fd);
                return -errno;
        }
        /* Sorted, each line found by bisection: a long list costs its
         * length, not its length times the names. */
        _cleanup_free_ bool *seen = calloc(n_names ?: 1, sizeof *seen);
        if (!seen)
                return -ENOMEM;
        qsort(names, n_names, sizeof *names, cmp_strp);
        while (listed < n_names && (l = getline(&line, &size, list)) > 0) {
                const char *entry;
                char **hit;

                read_total += (size_t) l;
                if (read_total > INSTALLED_LIST_MAX)
                        return -EFBIG;
                if (line[l - 1] == '\n')
                        line[--l] = '\0';
                if ((size_t) l <= rel_len + 1 || strncmp(line, rel, rel_len) != 0 || line[rel_len] != '/')
                        continue;
                entry = line + rel_len + 1;
                if (strchr(entry, '/'))
                        continue;
                hit = bsearch(&entry, names, n_names, sizeof *names, cmp_strp);
                if (hit && !seen[hit - names]) {
                        seen[hit - names] = true;
                        listed++;
                }
        }
        return ferror(list) ? -EIO : listed < n_names;
}

/* installed=: every entry of each directory its glob names is listed. */
static int installed_in_root(int rootfd, const KnownFile *f) {
        _cleanup_free_ char *base = NULL;
        _cleanup_close_ int listfd = -1;
        const char *glob = f->installed, *end;
        struct dirent *de;
        size_t root_len = strlen(f->installed_root), dirs = 0, wild = strcspn(glob, "*?["), start;
        int r = 0;
        DIR *d;

        while (root_len > 1 && f->installed_root[root_len - 1] == '/')
                root_len--;
        listfd = open_checked_in_root_max(rootfd, f->installed_list, S_IFREG, O_RDONLY, INSTALLED_LIST_MAX);
        if (listfd < 0)
                return listfd;
        if (glob[wild] == '\0') {
                _cleanup_free_ char *rel = NULL;

                if (asprintf(&rel, ".%s", glob + root_len) < 0)
                        return -ENOMEM;
                return dir_listed(rootfd, glob, rel, listfd);
        }
        /* The one component with the glob: its directory, read. */
        start = wild;
        while (start > 0 && glob[start - 1] != '/')
                start--;
        end = strchrnul(glob + wild, '/');
        base = strndup(glob, start);
        if (!base)
                return -ENOMEM;
        _cleanup_free_ char *pattern = strndup(glob + start, strcspn(glob + start, "/"));
        if (!pattern)
                return -ENOMEM;
        r = opendir_in_root(rootfd, base, &d);
        if (r < 0)
                return r;
        while (r == 0 && (de = readdir(d))) {
                _cleanup_free_ char *dir = NULL, *rel = NULL;

                if (de->d_name[0] == '.' || fnmatch(pattern, de->d_name, 0) != 0)
                        continue;
                if (++dirs > INSTALLED_DIRS_MAX) {
                        r = -E2BIG;
                        break;
                }
                if (asprintf(&dir, "%s%s%s", base, de->d_name, end) < 0 || asprintf(&rel, ".%s", dir + root_len) < 0) {
                        r = -ENOMEM;
                        break;
                }
                r = dir_listed(rootfd, dir, rel, listfd);
                if (r == -ENOENT)
                        r = 0;  /* python3.11 without site-packages: nothing there */
        }
        closedir(d);
        return r;
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

/* Judges file f for the process, from its own facts, as it runs now;
 * *ret_from_files: whether the verdict rests on files (its config, a
 * config directory, what is installed or absent, an @FILE it named),
 * which may change while it runs. One from its command line and
 * environment alone stands. */
static bool judge_live(const KnownFile *f, const InspectedProcess *p, bool refused, bool *ret_from_files, char *why,
                       size_t size) {
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *config = NULL, *config_dir = NULL, *environ_text = NULL;
        RootRead rr = { .rootfd = p->rootfd, .refused = refused };
        char unread[PATH_MAX];
        KnownFacts facts = {};
        const char *u = NULL;
        int r;

        r = read_argv(p->cmdlinefd, &argv, &facts.argc);
        if (r < 0)
                log_debug_errno(r, "Cannot read the command line of reader " PID_FMT ": %m", p->pid);
        *ret_from_files = f->config || f->config_dir || f->absent || f->installed ||
                          (f->arg_files && (!argv || argv_names_file(argv)));
        /* Kingpin reads "@FILE" as more arguments: as the process would. */
        if (argv && f->arg_files && known_expand_arg_files(&argv, &facts.argc, read_arg_file, &rr, &u) < 0) {
                format_to(unread, sizeof unread, "%s", u ?: "?");
                facts.arg_file_unread = unread;
                argv = strv_free(argv);
        }
        facts.argv = argv;
        if (f->config) {
                facts.config_path = known_file_config_path(f, argv, facts.argc);
                r = refused ? -EWOULDBLOCK : read_in_root(p->rootfd, facts.config_path, &config);
                facts.config_error = r < 0 ? r : 0;
                facts.config_text = config;
        }
        if (f->config_dir) {
                facts.config_dir_path = known_file_config_dir(f, argv, facts.argc);
                r = refused ? -EWOULDBLOCK : read_dir_in_root(p->rootfd, facts.config_dir_path, &config_dir);
                if (r < 0)
                        log_debug_errno(r, "Cannot read the configuration directory of reader " PID_FMT ": %m", p->pid);
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
        if (f->environ_forbids && read_environ(p->environfd, &environ_text) >= 0)
                facts.environ_text = environ_text;
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
        looked_at = p;
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
                ans->counts = judge_live(f, p, refused, &ans->from_files, ans->why, sizeof ans->why);
        return 0;
}

/* starttime (clock ticks since boot) as seconds since the epoch. */
static uint64_t began_from_start(uint64_t start) {
        uint64_t realtime = now_usec(CLOCK_REALTIME), since_boot = now_usec(CLOCK_BOOTTIME);
        long hz = sysconf(_SC_CLK_TCK);

        if (hz <= 0 || realtime < since_boot)
                return 0;
        return (realtime - since_boot) / USEC_PER_SEC + start / (uint64_t) hz;
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

static KnownCacheEntry *cache_find(KnownCache *c, const KnownRead *rd, bool have_start, uint64_t start,
                                   size_t reader, size_t file) {
        KnownCacheEntry *set = cache_set(c, rd->pid);

        for (size_t i = 0; i < KNOWN_CACHE_WAYS; i++) {
                KnownCacheEntry *e = &set[i];

                if (!same_process(e, rd, have_start, start))
                        continue;
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
        *e = (KnownCacheEntry) { .pid = a->pid, .start = a->start, .began = began_from_start(a->start),
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
}

static void ask_for(KnownVerdict *ret, const KnownCache *cache, const Catalogue *cat, const KnownRead *rd,
                    uint64_t start, size_t reader, size_t file) {
        KnownAsk *a = &ret->ask;

        /* Compared whole to join a lookup under way: no stray bytes. */
        memset(a, 0, sizeof *a);
        a->cat = cat;
        a->generation = cache->generation;
        a->pid = rd->pid;
        a->start = start;
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

/* k's verdict on a read its generic child made (the ancestry found k's
 * program above it): k's section for the file, if it needs no condition
 * (a condition is about k's own command line or configuration). */
static void judge_as_child(const KnownReader *k, const KnownRead *rd, KnownVerdict *ret) {
        const KnownFile *f = known_reader_file(k, rd->path);

        *ret = (KnownVerdict) { .counts = true, .reader = k };
        if (!f) {
                format_to(ret->why, sizeof ret->why, "counts: run by %s, %s", k->name,
                          k->counts ?: "whose entry exempts no reads of this file");
                format_to(ret->source, sizeof ret->source, "%s", k->source);
                return;
        }
        format_to(ret->source, sizeof ret->source, "%s:%u", k->source, f->line);
        if (known_file_conditional(f)) {
                format_to(ret->why, sizeof ret->why, "counts: run by %s, whose condition is on its own process",
                          k->name);
                return;
        }
        ret->counts = false;
        format_to(ret->why, sizeof ret->why, "known %s (run by it): %s", k->name, f->why);
}

/* A generic program (a shell, awk) that entry k names as its child= is
 * judged by k when, going up its ancestry, every process is one of k's
 * children until k's program: its binary, or one of its interpreters
 * running its script (a look says which; the processes of the same
 * interpreter below the first one known are forks of it: munin-node forks
 * one per connection). Returns true when it decided (ret set, maybe asking
 * for a look at the topmost ancestor not yet known); false: k is none of
 * its ancestry's, and the read counts as any other. */
static bool judge_by_ancestry(const Catalogue *cat, KnownCache *cache, const KnownRead *rd, KnownVerdict *ret) {
        for (size_t i = 0; i < cat->n; i++) {
                const KnownReader *k = &cat->readers[i];
                const KnownAncestor *unknown = NULL;    /* the topmost of k's interpreter not looked into */

                if (!host_file_among(k->children, k->n_children, rd->exe_dev, rd->exe_ino))
                        continue;
                for (size_t d = 0; d < rd->n_ancestors; d++) {
                        const KnownAncestor *a = &rd->ancestors[d];
                        KnownRead ard = { .pid = a->pid, .alive = a->alive, .has_uid = a->has_uid, .uid = a->uid };
                        KnownCacheEntry *e;
                        uint64_t start = 0;
                        bool have_start;

                        if (!a->has_exe_id)
                                break;
                        if (!unknown && host_file_among(k->children, k->n_children, a->exe_dev, a->exe_ino))
                                continue;
                        if (!unknown && host_file_among(k->exes, k->n_exes, a->exe_dev, a->exe_ino))
                                return judge_as_child(k, rd, ret), true;
                        if (!host_file_among(k->interpreters, k->n_interpreters, a->exe_dev, a->exe_ino) ||
                            (unknown && (unknown->exe_dev != a->exe_dev || unknown->exe_ino != a->exe_ino))) {
                                log_debug("Reader " PID_FMT ": its ancestor " PID_FMT " is not %s's (binary %" PRIu64
                                          ":%" PRIu64 ").",
                                          rd->pid, a->pid, k->name, a->exe_dev, a->exe_ino);
                                break;
                        }
                        have_start = a->alive && process_start_time(a->pid, &start) >= 0;
                        e = cache_find(cache, &ard, have_start, start, SIZE_MAX, 0);
                        if (e && e->reader == i)
                                return judge_as_child(k, rd, ret), true;
                        if (e) {
                                unknown = NULL;         /* another program, looked into: and so its forks */
                                break;
                        }
                        unknown = have_start ? a : unknown;
                        if (!have_start)
                                break;
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
                        uint64_t start;

                        if (process_start_time(unknown->pid, &start) < 0)
                                return false;
                        ask_for(ret, cache, cat, &ard, start, SIZE_MAX, SIZE_MAX);
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
        uint64_t start = 0;
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
        have_start = alive && process_start_time(rd->pid, &start) >= 0;
        if (ki == SIZE_MAX) {
                /* Inside a root of its own: what a look there found. */
                e = cache_find(cache, rd, have_start, start, SIZE_MAX, 0);
                if (!e && have_start)
                        return ask_for(ret, cache, cat, rd, start, SIZE_MAX, SIZE_MAX);
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
        e = cache_find(cache, rd, have_start, start, ki, fi);
        if (!e && !have_start) {
                format_to(ret->why, sizeof ret->why, "counts: gone before its command line could be checked");
                return;
        }
        if (!e)
                return ask_for(ret, cache, cat, rd, start, ki, fi);
        ret->counts = e->counts;
        if (e->counts)
                format_to(ret->why, sizeof ret->why, "%s", e->why);
        else
                format_to(ret->why, sizeof ret->why, "known %s: %s", k->name, f->why);
}
