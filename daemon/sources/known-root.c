/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Files in a reader's root, opened as the reader would open them (we are
 * it: the inspector's child) and no further: no mount crossed but those of
 * the root's own file system, nothing on the kernel's own file systems,
 * nothing that could block or act on being opened. The configuration
 * directories walked as their programs walk them. */

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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "known-root.h"
#include "log.h"
#include "macro.h"
#include "resolve.h"
#include "rootfs.h"
#include "strutil.h"

/* The process this child looks into (one look, one process). */
static const InspectedProcess *looked_at;

void known_root_look_at(const InspectedProcess *p) {
        looked_at = p;
}

/* Finds path inside the process's root (O_PATH): absolute links and ".."
 * stay in it, no magic links, and no mount is crossed (a FUSE mount a user
 * made could block the look), but those of the root's own file system
 * (systemd's ProtectSystem= binds /usr and /etc read-only over
 * themselves): the mount table says so of every directory on the path,
 * and what was found is on that file system. */
int open_in_root(int rootfd, const char *path) {
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

/* File systems that are not a root or a configuration a reader may name:
 * the kernel's own (a read of /proc/kmsg consumes it) and devices. */
bool pseudo_fs(long magic) {
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

bool on_pseudo_fs(int fd) {
        struct statfs sfs;

        return fstatfs(fd, &sfs) < 0 || pseudo_fs((long) sfs.f_type);
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

int open_checked_in_root(int rootfd, const char *path, mode_t type, int flags) {
        return open_checked_in_root_max(rootfd, path, type, flags, CONFIG_MAX);
}

int read_in_root(int rootfd, const char *path, char **ret) {
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
#define CONFIG_DIR_DEPTH_MAX 8

typedef struct DirWalk {
        int rootfd;
        bool recursive, hidden, follow;
        const char *names;      /* space-separated: these files, in place of *.conf */
        const char *suffixes;   /* space-separated: names ending so, in place of *.conf */
        const char *glob;       /* names it matches (fnmatch(3), as Go's filepath.Match), in place of *.conf */
        size_t files;
        FILE *out;
} DirWalk;

/* Whether name is one of the space-separated names. */
static bool name_listed(const char *names, const char *name) {
        size_t n = strlen(name);

        for (const char *p = names; p && *p; p += strcspn(p, " "), p += strspn(p, " "))
                if (strncmp(p, name, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
                        return true;
        return false;
}

/* Whether name ends in one of the space-separated suffixes, with
 * something before it ("x.yaml", not ".yaml"). */
static bool suffix_listed(const char *suffixes, const char *name) {
        size_t l = strlen(name);

        for (const char *p = suffixes; *p; p += strcspn(p, " "), p += strspn(p, " ")) {
                size_t n = strcspn(p, " ");

                if (l > n && strncmp(name + l - n, p, n) == 0)
                        return true;
        }
        return false;
}

/* Whether a directory's entry is a configuration file by its name. */
static bool config_file_name(const DirWalk *w, const char *name) {
        if (w->glob)
                return fnmatch(w->glob, name, 0) == 0;
        if (w->names)
                return name_listed(w->names, name);
        return (name[0] != '.' || w->hidden) && suffix_listed(w->suffixes ?: ".conf", name);
}

/* Whether name, a directory's entry at path, is a directory itself:
 * through a symbolic link only if w->follow (Vector's is_dir()), the link
 * resolved in the process's root; else never (as filepath.Walk's Lstat). */
static bool entry_is_dir(const DirWalk *w, DIR *d, const struct dirent *de, const char *path) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        if (de->d_type != DT_UNKNOWN && (de->d_type != DT_LNK || !w->follow))
                return de->d_type == DT_DIR;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return false;
        if (!S_ISLNK(st.st_mode) || !w->follow)
                return S_ISDIR(st.st_mode);
        fd = open_in_root(w->rootfd, path);
        return fd >= 0 && fstat(fd, &st) >= 0 && S_ISDIR(st.st_mode);
}

/* path's *.conf files into w->out, each read as read_in_root() reads a
 * file (so, as the process); its subdirectories too if w->recursive (not
 * those named "..*": Kubernetes' mounts). In the directory's order, not
 * the program's sorted one: which lines there are is what is judged. */
static int walk_config_dir(DirWalk *w, const char *path, unsigned depth) {
        struct dirent *de;
        int r = 0;
        DIR *d;

        if (depth > CONFIG_DIR_DEPTH_MAX)
                return -E2BIG;
        r = opendir_in_root(w->rootfd, path, &d);
        if (r < 0)
                return r == -ENOENT && depth > 0 ? -ESTALE : r;  /* gone meanwhile: not "none" */
        while (r >= 0 && (errno = 0, de = readdir(d))) {
                _cleanup_free_ char *file = NULL, *content = NULL;
                bool dir;

                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (asprintf(&file, "%s/%s", path, de->d_name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                dir = w->recursive && (de->d_name[0] != '.' || w->hidden) && entry_is_dir(w, d, de, file);
                if (dir && startswith(de->d_name, ".."))
                        continue;
                if (!dir && !config_file_name(w, de->d_name))
                        continue;
                if (dir) {
                        r = walk_config_dir(w, file, depth + 1);
                        continue;
                }
                if (++w->files > CONFIG_DIR_FILES_MAX) {
                        r = -E2BIG;
                        break;
                }
                r = read_in_root(w->rootfd, file, &content);
                if (r == -ENOENT)
                        r = -ESTALE;    /* a dangling link, or gone meanwhile: not "none" */
                if (r >= 0 && fprintf(w->out, "%s\n", content) < 0)
                        r = -ENOMEM;
        }
        if (r >= 0 && errno != 0)
                r = -errno;     /* readdir() failed: not the end */
        closedir(d);
        return r;
}

/* The *.conf files (or config_dir_names, those ending in
 * config_dir_suffixes, or those config_dir_glob matches below it) of a
 * directory the process names (f's config_dir, or the one its
 * config_dir_arg names), one after another; walked as the program walks
 * it (config_dir_recursive, config_dir_hidden, config_dir_follow). The entry's own directory, if it does not exist,
 * has none; one the command line names and that does not exist is an
 * error (the program would not have started, or loaded it when it did). */
int read_dir_in_root(int rootfd, const KnownFile *f, const char *path, char **ret, size_t *ret_files) {
        _cleanup_free_ char *text = NULL, *below = NULL;
        const char *slash = f->config_dir_glob ? strrchr(f->config_dir_glob, '/') : NULL;
        size_t size = 0;
        DirWalk w = { .rootfd = rootfd, .recursive = f->config_dir_recursive, .hidden = f->config_dir_hidden,
                      .follow = f->config_dir_follow, .names = f->config_dir_names,
                      .suffixes = f->config_dir_suffixes,
                      .glob = slash ? slash + 1 : f->config_dir_glob };
        int r = 0;

        if (slash) {
                /* The directory itself must be there, as without a glob;
                 * what it lacks below it, a glob finds nothing in. */
                DIR *d;

                r = opendir_in_root(rootfd, path, &d);
                if (r >= 0)
                        closedir(d);
                if (r >= 0 && asprintf(&below, "%s/%.*s", path, (int) (slash - f->config_dir_glob),
                                       f->config_dir_glob) < 0)
                        r = -ENOMEM;
        }
        w.out = open_memstream(&text, &size);
        if (!w.out)
                return -ENOMEM;
        if (r >= 0)
                r = walk_config_dir(&w, below ?: path, 0);
        *ret_files = w.files;
        if (fclose(w.out) != 0 && r >= 0)
                r = -ENOMEM;
        if (r == -ENOENT && (path == f->config_dir || below)) {
                *ret = strdup("");
                return *ret ? 0 : -ENOMEM;
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(text);
        return 0;
}

/* Whether anything in the process's root matches one of the absent=
 * paths (a glob in the last component): *ret_found is that path; a
 * directory that cannot be read (but does not exist) sets *ret_unread. */
void absent_in_root(int rootfd, const KnownFile *f, const char **ret_found, const char **ret_unread) {
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
int installed_in_root(int rootfd, const KnownFile *f) {
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
