/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who read: a reader's comm, executable, uid and unit from the daemon's own
 * /proc, in phases, checked against its pidfd. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* O_LARGEFILE, asprintf() */
#endif

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <systemd/sd-login.h>

#include "log.h"
#include "rootfs.h"
#include "strutil.h"
#include "parsers.h"
#include "readers-private.h"

void attribution_done(void *p) {
        /* An Attribution, or an EventAttribution that starts with one. */
        Attribution *a = p;
        free(a->comm);
        free(a->exe);
        free(a->unit);
        free(a->session);
        *a = (Attribution) {};
}

/* ---- attribution ---- */

static int proc_read(pid_t pid, const char *what, size_t max, char **ret) {
        char path[64];

        /* Deliberately the daemon's own /proc ("/" as root): fanotify reports
         * pids in the listener's pid namespace, whatever --root says. */
        snprintf(path, sizeof path, "/proc/" PID_FMT "/%s", pid, what);
        return root_read_file("/", path, max, ret);
}

/* /proc/PID/stat of a real pid. */
static int process_stat(pid_t pid, char **ret) {
        return pid <= 0 ? -ESRCH : proc_read(pid, "stat", 4096, ret);
}

/* Its system unit, else its user unit; NULL if it has neither. */
static char *pid_unit(pid_t pid) {
        char *unit = NULL;

        if (sd_pid_get_unit(pid, &unit) < 0 && sd_pid_get_user_unit(pid, &unit) < 0)
                return NULL;
        return unit;
}

static int get_comm(pid_t pid, char **ret) {
        char *s;
        size_t n;
        int r;

        r = proc_read(pid, "comm", 64, &s);
        if (r < 0)
                return r;
        n = strlen(s);
        if (n > 0 && s[n - 1] == '\n')
                s[n - 1] = '\0';
        *ret = s;
        return 0;
}

static int get_exe(pid_t pid, char **ret) {
        char path[64];

        snprintf(path, sizeof path, "/proc/" PID_FMT "/exe", pid);
        for (size_t size = 256; size <= 65536; size *= 2) {
                _cleanup_free_ char *buf = malloc(size);
                ssize_t n;

                if (!buf)
                        return -ENOMEM;
                n = readlink(path, buf, size);
                if (n < 0)
                        return -errno;  /* kernel threads: ENOENT; no ptrace access: EACCES */
                if ((size_t) n < size) {
                        const char *suffix = " (deleted)";
                        size_t l = strlen(suffix);

                        buf[n] = '\0';
                        /* A binary replaced by an upgrade is still the same program for exe= rules. */
                        if ((size_t) n > l && strcmp(buf + n - l, suffix) == 0)
                                buf[n - l] = '\0';
                        *ret = TAKE_PTR(buf);
                        return 0;
                }
        }
        return -ENAMETOOLONG;
}

static int get_uid(pid_t pid, uid_t *ret) {
        _cleanup_free_ char *status = NULL;
        int r;

        r = proc_read(pid, "status", 64 * 1024, &status);
        if (r < 0)
                return r;

        for (const char *line = status; line && *line;) {
                const char *v = startswith(line, "Uid:");

                if (v) {
                        char *end;
                        unsigned long u;

                        /* "Uid:\treal\teffective\tsaved\tfs": the real uid is who runs it. */
                        errno = 0;
                        u = strtoul(v, &end, 10);
                        if (errno != 0 || end == v || u >= UINT32_MAX)
                                return -EIO;
                        *ret = (uid_t) u;
                        return 0;
                }
                line = strchr(line, '\n');
                if (line)
                        line++;
        }
        return -ENODATA;
}

#define PF_EXITING_FLAG 0x00000004     /* include/linux/sched.h: getting shut down */

/* 1 if the process behind pidfd still exists (a zombie counts: its pid
 * cannot be reused yet), 0 if it is gone, negative errno if unknown. */
static int pidfd_alive(int pidfd) {
        if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) >= 0)
                return 1;
        if (errno == ESRCH)
                return 0;
        if (errno == EPERM)     /* no CAP_KILL over it, but it is there */
                return 1;
        return -errno;
}

void attribute_fields(EventAttribution *ea, ReadEvent *ev, unsigned fields) {
        Attribution *a = &ea->a;
        pid_t pid = ea->pid;
        unsigned want = fields & ~ea->done;
        int r;

        if (ea->gone || want == 0)
                return;
        /* Every field is best effort: the reader may be gone, a kernel thread
         * has no exe, and /proc/PID/exe needs ptrace access. Missing fields
         * stay NULL, which ignore rules treat as "no match". */
        if (want & ATTRIBUTE_COMM) {
                r = get_comm(pid, &a->comm);
                if (r < 0)
                        log_debug_errno(r, "Cannot read comm of reader " PID_FMT ": %m", pid);
        }
        if (want & ATTRIBUTE_EXE) {
                char exe[64];
                struct statx sx;

                /* The binary itself first, for exe= rules written with
                 * another path to it (/bin/cat for /usr/bin/cat), and its
                 * path after: a reader that exits between the two is then
                 * known by its binary alone, as its exit record will name
                 * it, and joins the same line; a path without the binary
                 * would start another. Cached attributes: the binary may
                 * be on a FUSE mount whose server never answers. */
                snprintf(exe, sizeof exe, "/proc/" PID_FMT "/exe", pid);
                if (statx(AT_FDCWD, exe, AT_STATX_DONT_SYNC, STATX_INO, &sx) >= 0) {
                        a->has_exe_id = true;
                        a->exe_dev = (uint64_t) makedev(sx.stx_dev_major, sx.stx_dev_minor);
                        a->exe_ino = (uint64_t) sx.stx_ino;
                        r = get_exe(pid, &a->exe);
                        if (r < 0)
                                log_debug_errno(r, "Cannot read exe of reader " PID_FMT ": %m", pid);
                } else
                        log_debug_errno(-errno, "Cannot stat exe of reader " PID_FMT ": %m", pid);
        }
        if (want & ATTRIBUTE_UID) {
                r = get_uid(pid, &a->uid);
                if (r >= 0)
                        a->has_uid = true;
                else
                        log_debug_errno(r, "Cannot read uid of reader " PID_FMT ": %m", pid);
        }
        if (want & ATTRIBUTE_UNIT) {
                a->unit = pid_unit(pid);
                if (sd_pid_get_session(pid, &a->session) < 0)
                        a->session = NULL;
        }
        ea->done |= want;

        if (ea->pidfd >= 0) {
                /* Checked after reading: if the process still exists now, the
                 * pid was not reused while we read its /proc files. */
                int k = pidfd_alive(ea->pidfd);
                if (k == 0) {
                        log_debug("Reader " PID_FMT " exited during attribution, dropping what was read.", pid);
                        if (want & ATTRIBUTE_COMM)
                                a->comm = mfree(a->comm);
                        if (want & ATTRIBUTE_EXE) {
                                a->exe = mfree(a->exe);
                                a->has_exe_id = false;
                        }
                        if (want & ATTRIBUTE_UID)
                                a->has_uid = false;
                        if (want & ATTRIBUTE_UNIT) {
                                a->unit = mfree(a->unit);
                                a->session = mfree(a->session);
                        }
                        ea->gone = true;
                } else if (k > 0 && (want == ea->done))
                        ev->pid_verified = true;        /* the first phase decides what is shown */
                else if (k < 0)
                        log_debug_errno(k, "Cannot check reader " PID_FMT " via its pidfd: %m", pid);
        }

        ev->comm = a->comm;
        ev->exe = a->exe;
        ev->unit = a->unit;
        ev->session = a->session;
        ev->has_uid = a->has_uid;
        ev->uid = a->uid;
        ev->has_exe_id = a->has_exe_id;
        ev->exe_dev = a->exe_dev;
        ev->exe_ino = a->exe_ino;
}

typedef enum ExitState {
        EXIT_STATE_RUNNING,
        EXIT_STATE_EXITING,     /* PF_EXITING: set as exit starts, before its memory, exe and record go */
        EXIT_STATE_DONE,        /* a zombie, or gone */
} ExitState;

static ExitState process_exit_state(pid_t pid) {
        _cleanup_free_ char *stat = NULL;
        const char *fields;
        unsigned flags;

        if (process_stat(pid, &stat) < 0)
                return EXIT_STATE_DONE;
        /* The state and the flags follow the comm: "S ppid pgrp session tty_nr tpgid flags ...". */
        fields = proc_stat_fields(stat);
        if (!fields || strchr("ZX", fields[0]))
                return EXIT_STATE_DONE;
        if (sscanf(fields + 1, " %*d %*d %*d %*d %*d %u", &flags) == 1 && (flags & PF_EXITING_FLAG))
                return EXIT_STATE_EXITING;
        return EXIT_STATE_RUNNING;
}

bool process_exiting(pid_t pid) {
        return pid > 0 && process_exit_state(pid) == EXIT_STATE_EXITING;
}

bool read_event_exited(ReadEvent *ev) {
        EventAttribution *ea = ev ? ev->attribution : NULL;

        if (!ea || ea->pid <= 0)
                return false;   /* nothing to look up: another pid namespace */
        if (ea->gone)
                return true;
        if (ea->pidfd >= 0 && pidfd_alive(ea->pidfd) == 0)
                return true;
        return process_exit_state(ea->pid) != EXIT_STATE_RUNNING;
}

int process_parent(pid_t pid, pid_t *ret) {
        _cleanup_free_ char *stat = NULL;
        int r = process_stat(pid, &stat);

        return r < 0 ? r : proc_stat_ppid(stat, ret);
}

int process_start_time(pid_t pid, uint64_t *ret) {
        _cleanup_free_ char *stat = NULL;
        int r = process_stat(pid, &stat);

        return r < 0 ? r : proc_stat_starttime(stat, ret);
}

int process_start_image(pid_t pid, uint64_t *ret_start, uint64_t *ret_image) {
        _cleanup_free_ char *stat = NULL;
        int r = process_stat(pid, &stat);

        if (r >= 0)
                r = proc_stat_starttime(stat, ret_start);
        return r < 0 ? r : proc_stat_image(stat, ret_image);
}

uint64_t process_ns(pid_t pid, const char *which) {
        char path[64];
        struct stat st;

        if (pid > 0)
                snprintf(path, sizeof path, "/proc/" PID_FMT "/ns/%s", pid, which);
        else
                snprintf(path, sizeof path, "/proc/self/ns/%s", which);
        return stat(path, &st) < 0 ? 0 : (uint64_t) st.st_ino;
}

void process_describe(pid_t pid, uid_t uid, ReaderRef *ret) {
        _cleanup_free_ char *comm = NULL, *unit = NULL, *session = NULL;

        (void) get_comm(pid, &comm);
        unit = pid_unit(pid);
        if (!unit && sd_pid_get_session(pid, &session) < 0)
                session = NULL;
        reader_ref_set(ret, pid, false, true, uid, comm, unit ?: session, NULL);
}

void read_event_attribute(ReadEvent *ev) {
        if (ev && ev->attribution)
                attribute_fields(ev->attribution, ev, ATTRIBUTE_ALL);
}

int process_binary(pid_t pid, uid_t *ret_uid, uint64_t *ret_exe_dev, uint64_t *ret_exe_ino) {
        char exe[64];
        struct statx sx;
        int r;

        r = get_uid(pid, ret_uid);
        if (r < 0)
                return r;
        /* Cached attributes: the binary may be on a FUSE mount whose
         * server never answers. */
        snprintf(exe, sizeof exe, "/proc/" PID_FMT "/exe", pid);
        if (statx(AT_FDCWD, exe, AT_STATX_DONT_SYNC, STATX_INO, &sx) < 0)
                return -errno;
        *ret_exe_dev = (uint64_t) makedev(sx.stx_dev_major, sx.stx_dev_minor);
        *ret_exe_ino = (uint64_t) sx.stx_ino;
        return 0;
}
