/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* O_LARGEFILE, asprintf() */
#endif

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <fnmatch.h>
#include <glob.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <systemd/sd-event.h>
#include <systemd/sd-login.h>

#include "fanotify-abi.h"
#include "log.h"
#include "macro.h"
#include "readers.h"
#include "resolve.h"
#include "rootfs.h"
#include "strutil.h"
#include "time-util.h"

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

#define FANOTIFY_FLAGS (FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK)
#define FANOTIFY_EVENT_FLAGS (O_RDONLY | O_CLOEXEC | O_LARGEFILE)

/* What a marked file is known by. Events are mapped back by inode rather
 * than by the event fd's /proc/self/fd link: the kernel's spelling of that
 * path depends on mounts (bind-mounted roots, a container's /proc), the
 * inode does not. */
typedef struct WatchId {
        dev_t dev;
        ino_t ino;
        size_t path;            /* index into watched */
} WatchId;

/* The last read event of a pid, for coalescing a burst. */
typedef struct RecentRead {
        pid_t pid;
        dev_t dev;
        ino_t ino;
        uint64_t at;            /* CLOCK_MONOTONIC µs */
} RecentRead;

#define RECENT_READS 1024       /* direct-mapped by pid */
/* Reads of one file by one process closer than this are one: the first is
 * judged and handed on, the rest only counted. */
#define COALESCE_USEC (100 * 1000)
#define READERS_RATELIMIT_USEC (10 * 1000)
#define READERS_BURST 4

struct Readers {
        sd_event *event;
        sd_event_source *source;
        int fd;
        bool have_pidfd;
        pid_t self;
        unsigned early_fields;

        ReadersCallback callback;
        ReadersFailure failure;
        void *userdata;

        RecentRead recent[RECENT_READS];
        uint64_t coalesced;

        char **watched;         /* as configured (no root prefix), each once, NULL-terminated */
        WatchId *ids;           /* every inode marked: a path may have one per view */
        size_t n_ids;
        size_t *slots;          /* ids by inode: open addressing, index + 1, 0 empty */
        size_t n_slots;         /* a power of two, or 0 */
};

/* Process information of one reader, from the daemon's own /proc. */
typedef struct Attribution {
        char *comm;
        char *exe;
        char *unit;
        char *session;
        bool has_uid;
        uid_t uid;
        bool has_exe_id;
        uint64_t exe_dev, exe_ino;
} Attribution;

static void attribution_done(void *p) {
        /* An Attribution, or an EventAttribution that starts with one. */
        Attribution *a = p;
        free(a->comm);
        free(a->exe);
        free(a->unit);
        free(a->session);
        *a = (Attribution) {};
}

static void readers_clear_watched(Readers *r) {
        r->watched = strv_free(r->watched);
        free(r->ids);
        r->ids = NULL;
        r->n_ids = 0;
        free(r->slots);
        r->slots = NULL;
        r->n_slots = 0;
}

Readers *readers_free(Readers *r) {
        if (!r)
                return NULL;

        sd_event_source_disable_unref(r->source);
        if (r->fd >= 0)
                close(r->fd);
        sd_event_unref(r->event);
        readers_clear_watched(r);
        free(r);
        return NULL;
}

int readers_pending(Readers *r) {
        int n = 0;

        if (!r || ioctl(r->fd, FIONREAD, &n) < 0)
                return 0;
        return n;
}

bool readers_have_pidfd(Readers *r) {
        return r && r->have_pidfd;
}

char * const *readers_watched(Readers *r) {
        static char *empty[] = { NULL };

        return r && r->watched ? r->watched : empty;
}

/* ---- attribution ---- */

static int proc_read(pid_t pid, const char *what, size_t max, char **ret) {
        char path[64];

        /* Deliberately the daemon's own /proc ("/" as root): fanotify reports
         * pids in the listener's pid namespace, whatever --root says. */
        snprintf(path, sizeof path, "/proc/" PID_FMT "/%s", pid, what);
        return root_read_file("/", path, max, ret);
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

/* ---- events ---- */

/* ---- marked inodes by (dev, ino): every lookup in constant time ---- */

static size_t id_hash(dev_t dev, ino_t ino, size_t n_slots) {
        uint64_t h = ((uint64_t) dev * UINT64_C(0x9E3779B97F4A7C15)) ^ ((uint64_t) ino * UINT64_C(0xC2B2AE3D27D4EB4F));
        return (size_t) (h ^ (h >> 29)) & (n_slots - 1);
}

/* The index of (dev, ino) in ids, or -1. */
static ssize_t ids_find(const WatchId *ids, const size_t *slots, size_t n_slots, dev_t dev, ino_t ino) {
        if (n_slots == 0)
                return -1;
        for (size_t k = id_hash(dev, ino, n_slots);; k = (k + 1) & (n_slots - 1)) {
                size_t i = slots[k];
                if (i == 0)
                        return -1;
                if (ids[i - 1].dev == dev && ids[i - 1].ino == ino)
                        return (ssize_t) (i - 1);
        }
}

/* Adds ids[index] to slots, growing them to keep them at most half full. */
static int ids_index(const WatchId *ids, size_t index, size_t **slots, size_t *n_slots) {
        if ((index + 1) * 2 > *n_slots) {
                size_t n = *n_slots ? *n_slots * 2 : 64;
                size_t *a = calloc(n, sizeof *a);

                if (!a)
                        return -ENOMEM;
                free(*slots);
                *slots = a;
                *n_slots = n;
                for (size_t i = 0; i < index; i++)
                        (void) ids_index(ids, i, slots, n_slots);
        }
        for (size_t k = id_hash(ids[index].dev, ids[index].ino, *n_slots);; k = (k + 1) & (*n_slots - 1))
                if ((*slots)[k] == 0) {
                        (*slots)[k] = index + 1;
                        return 0;
                }
}

static const char *readers_find(Readers *r, int fd, struct stat *ret) {
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0)
                return NULL;
        *ret = st;
        ssize_t i = ids_find(r->ids, r->slots, r->n_slots, st.st_dev, st.st_ino);
        if (i >= 0)
                return r->watched[r->ids[i].path];
        return NULL;
}

static int event_pidfd(const struct fanotify_event_metadata *m) {
        const char *p = (const char *) m + m->metadata_len;
        const char *end = (const char *) m + m->event_len;

        if (m->metadata_len < FAN_EVENT_METADATA_LEN || m->metadata_len > m->event_len)
                return FAN_NOPIDFD;

        while ((size_t) (end - p) >= sizeof(struct fanotify_event_info_header)) {
                const struct fanotify_event_info_header *h = (const void *) p;

                if (h->len < sizeof *h || h->len > (size_t) (end - p))
                        break;
                if (h->info_type == FAN_EVENT_INFO_TYPE_PIDFD &&
                    h->len >= sizeof(struct fanotify_event_info_pidfd)) {
                        int pidfd;

                        /* The record may be unaligned within the buffer. */
                        memcpy(&pidfd, p + offsetof(struct fanotify_event_info_pidfd, pidfd), sizeof pidfd);
                        return pidfd;
                }
                p += h->len;
        }
        return FAN_NOPIDFD;
}

/* One event's attribution, done in phases (see readers_set_early_fields()). */
typedef struct EventAttribution {
        Attribution a;
        pid_t pid;
        int pidfd;              /* FAN_NOPIDFD, FAN_EPIDFD or an fd */
        bool have_pidfd;        /* the group reports pidfds at all */
        bool gone;              /* nothing (more) to attribute: the reader is gone or unknown */
        unsigned done;
} EventAttribution;

static void attribute_fields(EventAttribution *ea, ReadEvent *ev, unsigned fields) {
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

                r = get_exe(pid, &a->exe);
                if (r < 0)
                        log_debug_errno(r, "Cannot read exe of reader " PID_FMT ": %m", pid);
                /* The binary itself, for exe= rules written with another
                 * path to it (/bin/cat for /usr/bin/cat). */
                snprintf(exe, sizeof exe, "/proc/" PID_FMT "/exe", pid);
                /* Cached attributes: the binary may be on a FUSE mount
                 * whose server never answers. */
                if (r >= 0 && statx(AT_FDCWD, exe, AT_STATX_DONT_SYNC, STATX_INO, &sx) >= 0) {
                        a->has_exe_id = true;
                        a->exe_dev = (uint64_t) makedev(sx.stx_dev_major, sx.stx_dev_minor);
                        a->exe_ino = (uint64_t) sx.stx_ino;
                }
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

bool read_event_exited(ReadEvent *ev) {
        EventAttribution *ea = ev ? ev->attribution : NULL;
        _cleanup_free_ char *stat = NULL;
        const char *state;
        unsigned flags;

        if (!ea || ea->pid <= 0)
                return false;   /* nothing to look up: another pid namespace */
        if (ea->gone)
                return true;
        if (ea->pidfd >= 0 && pidfd_alive(ea->pidfd) == 0)
                return true;
        /* Gone, a zombie, or exiting (PF_EXITING is set as exit starts,
         * before its memory and exe go): the state and the flags follow the
         * comm's closing parenthesis (comm may hold one too):
         * ") S ppid pgrp session tty_nr tpgid flags ...". */
        if (proc_read(ea->pid, "stat", 4096, &stat) < 0)
                return true;
        state = strrchr(stat, ')');
        if (!state || state[1] != ' ' || !state[2] || strchr("ZX", state[2]))
                return true;
        return sscanf(state + 3, " %*d %*d %*d %*d %*d %u", &flags) == 1 && (flags & PF_EXITING_FLAG);
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

void readers_set_early_fields(Readers *r, unsigned fields) {
        if (r)
                r->early_fields = fields & ATTRIBUTE_ALL;
}

/* Whether this read by pid of the file st continues a burst the last read
 * of it began less than COALESCE_USEC ago: a process reading in a loop is
 * judged once per burst, not once per read (attribution costs tens of
 * microseconds). */
static bool coalesce(Readers *r, pid_t pid, const struct stat *st) {
        RecentRead *rr = &r->recent[(unsigned) pid % RECENT_READS];
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        if (rr->pid == pid && rr->dev == st->st_dev && rr->ino == st->st_ino && now - rr->at < COALESCE_USEC) {
                r->coalesced++;
                return true;
        }
        *rr = (RecentRead) { .pid = pid, .dev = st->st_dev, .ino = st->st_ino, .at = now };
        return false;
}

uint64_t readers_coalesced(Readers *r) {
        return r ? r->coalesced : 0;
}

static void readers_handle_event(Readers *r, const struct fanotify_event_metadata *m) {
        /* Both fds are ours now, whatever happens to the event. */
        _cleanup_close_ int fd = m->fd, pidfd = event_pidfd(m);
        _cleanup_(attribution_done) EventAttribution ea = {
                .pid = m->pid,
                .pidfd = pidfd,
                .have_pidfd = r->have_pidfd,
        };
        ReadEvent ev = {};
        const char *path;
        struct stat st;

        if (m->mask & FAN_Q_OVERFLOW) {
                log_debug("fanotify queue overflowed, reads were lost.");
                ev.overflow = true;
                r->callback(r, &ev, r->userdata);
                return;
        }

        /* The daemon reads the statistics itself: those reads never count. */
        if (m->pid == r->self)
                return;

        path = readers_find(r, fd, &st);
        if (!path) {
                /* A file marked before the last readers_watch() that is no longer watched. */
                log_debug("Read event by " PID_FMT " on a file no longer watched, ignoring.", (pid_t) m->pid);
                return;
        }
        if (m->pid > 0 && coalesce(r, (pid_t) m->pid, &st))
                return;

        if (m->pid <= 0)
                ea.gone = true;         /* in a pid namespace we cannot see: nothing to attribute */
        else if (r->have_pidfd && pidfd != FAN_EPIDFD && pidfd < 0) {
                /* FAN_NOPIDFD: already reaped, the pid may belong to someone else by now. */
                log_debug("Reader " PID_FMT " exited before attribution.", (pid_t) m->pid);
                ea.gone = true;
        }
        /* Without a pidfd (before 5.15, or FAN_EPIDFD) attribution is a
         * guess the pid was not reused: pid_verified stays false. */

        ev = (ReadEvent) {
                .pid = m->pid > 0 ? (pid_t) m->pid : 0,
                .path = path,
                .attribution = &ea,
        };
        attribute_fields(&ea, &ev, r->early_fields);
        r->callback(r, &ev, r->userdata);
}

static bool read_error_is_fatal(int error) {
        /* These leave the event queued (buffer too small) or mean the fd is
         * broken; any other read() error consumed one event. */
        return error == EINVAL || error == EFAULT || error == EBADF;
}

/* The group is dead: stop listening and tell the owner, who may free r. */
static void readers_fail(Readers *r, int error) {
        (void) sd_event_source_set_enabled(r->source, SD_EVENT_OFF);
        r->failure(r, error, r->userdata);
}

/* After an event of unknown layout: close the fds of the events still in
 * the buffer whose layout is known. event_len leads every version. */
static void close_remaining(const struct fanotify_event_metadata *m, size_t len) {
        for (; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len))
                if (m->vers == FANOTIFY_METADATA_VERSION) {
                        if (m->fd >= 0)
                                close(m->fd);
                        int pidfd = event_pidfd(m);
                        if (pidfd >= 0)
                                close(pidfd);
                }
}

/* Returns false if r failed (and may be gone). */
static bool readers_process(Readers *r, const void *buf, size_t n) {
        const struct fanotify_event_metadata *m = buf;
        size_t len = n;

        for (; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
                if (m->vers != FANOTIFY_METADATA_VERSION) {
                        log_error("fanotify metadata version %u, expected %u; reader detection stops.", m->vers,
                                  FANOTIFY_METADATA_VERSION);
                        /* Its own fd sits where we cannot be sure of; the rest we can close.
                         * FAN_EVENT_NEXT shrinks len: step first, then pass what is left. */
                        const struct fanotify_event_metadata *rest = FAN_EVENT_NEXT(m, len);
                        close_remaining(rest, len);
                        readers_fail(r, -EPROTO);
                        return false;
                }
                readers_handle_event(r, m);
        }
        return true;
}

void readers_process_buffer(Readers *r, const void *buf, size_t len) {
        (void) readers_process(r, buf, len);
}

static int on_fanotify(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        int k = readers_flush(userdata);

        /* A flood loses its precedence: while a batch leaves events queued,
         * timers, the watchdog and varlink callers take turns with it. */
        if (k >= 0)
                (void) sd_event_source_set_priority(s, k > 0 ? SD_EVENT_PRIORITY_NORMAL : SD_EVENT_PRIORITY_IMPORTANT);
        return 0;
}

int readers_flush(Readers *r) {
        bool warned = false;
        int fd;

        if (!r)
                return 0;
        fd = r->fd;

        for (unsigned batch = 0; batch < READERS_BATCH_READS; batch++) {
                /* Big enough for many events; the kernel never splits one. */
                char buf[8192] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
                ssize_t n;

                n = read(fd, buf, sizeof buf);
                if (n < 0) {
                        if (errno == EAGAIN)
                                return 0;
                        if (errno == EINTR)
                                continue;
                        if (read_error_is_fatal(errno)) {
                                /* Nothing was consumed: retrying would spin. */
                                int k = -errno;
                                log_error_errno(k, "Reading fanotify events failed, reader detection stops: %m");
                                readers_fail(r, k);
                                return -1;
                        }

                        /* The kernel could not open the file for one event (EMFILE,
                         * ENFILE, ...) and dropped it: a read we will never see. */
                        if (!warned)
                                log_warning_errno(errno, "Lost a read event: %m");
                        warned = true;
                        r->callback(r, &(ReadEvent) { .overflow = true }, r->userdata);
                        continue;
                }
                if (!readers_process(r, buf, (size_t) n))
                        return -1;      /* r may be gone */
        }
        return readers_pending(r) > 0 ? 1 : 0;
}

int readers_new(sd_event *event, ReadersCallback cb, ReadersFailure fail, void *userdata, Readers **ret) {
        _cleanup_(readers_freep) Readers *r = NULL;
        int k;

        if (!event || !cb || !fail || !ret)
                return -EINVAL;

        r = calloc(1, sizeof *r);
        if (!r)
                return -ENOMEM;
        *r = (Readers) {
                .event = sd_event_ref(event),
                .fd = -1,
                .self = getpid(),
                .early_fields = ATTRIBUTE_ALL,
                .callback = cb,
                .failure = fail,
                .userdata = userdata,
        };

        r->fd = fanotify_init(FANOTIFY_FLAGS | FAN_REPORT_PIDFD, FANOTIFY_EVENT_FLAGS);
        if (r->fd >= 0)
                r->have_pidfd = true;
        else if (errno == EINVAL) {
                /* Before 5.15: attribution then cannot prove the pid was not reused. */
                log_debug("fanotify has no FAN_REPORT_PIDFD, reader pids are unverified.");
                r->fd = fanotify_init(FANOTIFY_FLAGS, FANOTIFY_EVENT_FLAGS);
        }
        if (r->fd < 0)
                return -errno;  /* EPERM without CAP_SYS_ADMIN: the caller reports it */

        k = sd_event_add_io(event, &r->source, r->fd, EPOLLIN, on_fanotify, r);
        if (k < 0)
                return k;
        (void) sd_event_source_set_description(r->source, "readers-fanotify");
        /* Reads come before the timers: a decision (arming, say) due in the
         * same turn must see them first. */
        (void) sd_event_source_set_priority(r->source, SD_EVENT_PRIORITY_IMPORTANT);
        /* Under a flood, at most READERS_BURST wakeups per 10 ms: the queue
         * fills in between, and the kernel merges the reads of a process
         * still queued into one event (no fd opened for each). Outside a
         * flood nothing waits: a read is handled as soon as it is queued. */
        (void) sd_event_source_set_ratelimit(r->source, READERS_RATELIMIT_USEC, READERS_BURST);

        *ret = TAKE_PTR(r);
        return 0;
}

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
        free(w->ids);
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

/* Records the inode st as marked under path. */
static int watch_set_add(WatchSet *w, const struct stat *st, const char *path) {
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
        if (i < 0)
                return -ENOMEM;
        w->ids[w->n] = (WatchId) { .dev = st->st_dev, .ino = st->st_ino, .path = (size_t) i };
        if (ids_index(w->ids, w->n, &w->slots, &w->n_slots) < 0)
                return -ENOMEM;
        w->n++;
        return 0;
}

/* The root's and the views' own files: paths root chose. Any failure but a
 * file that vanished is returned (the caller then marks nothing). */
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
                /* After marking, so the identity is that of the marked inode. */
                if (stat(fulls[i], &st) < 0) {
                        (void) fanotify_mark(r->fd, FAN_MARK_REMOVE, FAN_ACCESS, AT_FDCWD, fulls[i]);
                        continue;
                }
                if (watch_set_add(w, &st, paths[i]) < 0)
                        return -ENOMEM;
                if (!watch_set_host_dev(w, st.st_dev) && w->n_host_devs < HOST_DEVS_MAX)
                        w->host_devs[w->n_host_devs++] = st.st_dev;
        }
        return 0;
}

/* ---- containers' views: paths another user may have chosen ---- */

#define VIEW_FILES_MAX 4096     /* per container: two files for each of 1024 nodes (MAX_NUMNODES), and more */

typedef struct ViewWalk {
        Readers *r;
        WatchSet *w;
        pid_t pid;
        size_t n_files;
} ViewWalk;

/* Marks the file fd (O_PATH) found at path in a container's view: through
 * the fd itself, so the mark lands on the inode that was checked. */
static void view_mark(ViewWalk *v, int fd, const char *path) {
        char self[64];
        struct stat st;

        if (v->w->full || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return;
        /* A file of a superblock the root's own marks cover is not a
         * procfs or sysfs of the container's own, but a bind mount of one of
         * ours (perhaps of another file of it): nothing to add. */
        if (watch_set_host_dev(v->w, st.st_dev) || watch_set_has(v->w, &st))
                return;
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        if (fanotify_mark(v->r->fd, FAN_MARK_ADD, FAN_ACCESS, AT_FDCWD, self) < 0) {
                if (errno == ENOSPC) {
                        v->w->full = true;
                        log_warning("The fanotify marks limit (fs.fanotify.max_user_marks) is reached: containers' "
                                    "statistics files beyond %zu marks are not watched.", v->w->n);
                } else
                        log_debug_errno(errno, "Cannot mark %s as process " PID_FMT " sees it: %m", path, v->pid);
                return;
        }
        if (watch_set_add(v->w, &st, path) < 0)
                (void) fanotify_mark(v->r->fd, FAN_MARK_REMOVE, FAN_ACCESS, AT_FDCWD, self);
}

static bool is_glob(const char *s) {
        return strpbrk(s, "*?[") != NULL;
}

/* Expands pattern rest (relative) below dirfd, one component at a time:
 * no symbolic link followed, no mount crossed, directories listed only
 * for a component with a wildcard. done is the configured path so far. */
static void view_expand(ViewWalk *v, int dirfd, const char *rest, const char *done) {
        _cleanup_free_ char *comp = NULL;
        const char *after;
        size_t len;

        rest += strspn(rest, "/");
        len = strcspn(rest, "/");
        if (len == 0 || v->n_files >= VIEW_FILES_MAX)
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
                if (after[strspn(after, "/")] == '\0') {
                        v->n_files++;
                        view_mark(v, fd, path);
                } else
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
        while ((de = readdir(d)) && v->n_files < VIEW_FILES_MAX) {
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

/* The statistics files as process pid's mount namespace has them: only in a
 * real procfs mounted at its root's /proc (and a real sysfs at /sys), the
 * file system's own root directory there. */
static void watch_container(Readers *r, WatchSet *w, pid_t pid, char * const *patterns) {
        _cleanup_close_ int rootfd = -1;
        ViewWalk v = { .r = r, .w = w, .pid = pid };
        char root[64];

        snprintf(root, sizeof root, "/proc/" PID_FMT "/root", pid);
        rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return;
        if (resolve_root_may_block(pid, rootfd)) {
                log_debug("Process " PID_FMT "'s root is on FUSE: not looked into.", pid);
                return;
        }
        for (char * const *p = patterns; p && *p; p++) {
                _cleanup_close_ int topfd = -1;
                const char *rest;
                long magic = view_magic(*p, &rest);

                if (magic == 0)
                        continue;       /* not a file of /proc or /sys: nothing a container has apart */
                topfd = resolve_open_fs_root(pid, rootfd, magic == PROC_SUPER_MAGIC ? "proc" : "sys", magic);
                if (topfd < 0) {
                        log_debug("Process " PID_FMT "'s root has no %s at %s: not watched there.", pid,
                                  magic == PROC_SUPER_MAGIC ? "procfs" : "sysfs",
                                  magic == PROC_SUPER_MAGIC ? "/proc" : "/sys");
                        continue;
                }
                view_expand(&v, topfd, rest, magic == PROC_SUPER_MAGIC ? "/proc" : "/sys");
        }
}

int readers_watch(Readers *r, const char *root, char * const *patterns, char * const *views, const pid_t *containers,
                  size_t n_containers) {
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

        /* Marks live on inodes: a node that went away and came back is a new
         * inode, so start from nothing rather than diffing. */
        if (fanotify_mark(r->fd, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL) < 0)
                return -errno;
        readers_clear_watched(r);

        k = watch_host(r, &w, fulls, paths);
        if (k < 0) {
                /* Leave a consistent state: nothing marked, nothing listed. */
                (void) fanotify_mark(r->fd, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL);
                return k;
        }
        /* What a container's files cost is theirs: one that cannot be
         * marked is skipped, the root's marks stay. */
        for (size_t i = 0; i < n_containers; i++)
                watch_container(r, &w, containers[i], patterns);

        r->watched = TAKE_PTR(w.kept);
        r->ids = TAKE_PTR(w.ids);
        r->n_ids = w.n;
        r->slots = TAKE_PTR(w.slots);
        r->n_slots = w.n_slots;
        return (int) r->n_ids;
}
