/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reader detection: the fanotify group, its events (bounded per wakeup,
 * coalesced per reader), and its failure. */

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
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <systemd/sd-event.h>

#include "event-util.h"
#include "log.h"
#include "strutil.h"
#include "time-util.h"
#include "readers-private.h"

void watch_ids_free(WatchId *ids, size_t n) {
        for (size_t i = 0; ids && i < n; i++)
                free(ids[i].full);
        free(ids);
}

void readers_clear_watched(Readers *r) {
        r->watched = strv_free(r->watched);
        watch_ids_free(r->ids, r->n_ids);
        r->ids = NULL;
        r->n_ids = 0;
        free(r->slots);
        r->slots = NULL;
        r->n_slots = 0;
}

Readers *readers_free(Readers *r) {
        if (!r)
                return NULL;

        event_ratelimit_free(r->ratelimit);
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

/* ---- events ---- */

/* ---- marked inodes by (dev, ino): every lookup in constant time ---- */

static size_t id_hash(dev_t dev, ino_t ino, size_t n_slots) {
        uint64_t h = ((uint64_t) dev * UINT64_C(0x9E3779B97F4A7C15)) ^ ((uint64_t) ino * UINT64_C(0xC2B2AE3D27D4EB4F));
        return (size_t) (h ^ (h >> 29)) & (n_slots - 1);
}

/* The index of (dev, ino) in ids, or -1. */
ssize_t ids_find(const WatchId *ids, const size_t *slots, size_t n_slots, dev_t dev, ino_t ino) {
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
int ids_index(const WatchId *ids, size_t index, size_t **slots, size_t *n_slots) {
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

        /* The daemon reads the statistics itself: those reads never count,
         * but the fd may spare it the next ones' events. */
        if (m->pid == r->self) {
                if (fd >= 0)
                        r->callback(r, &(ReadEvent) { .own_fd = &fd }, r->userdata);
                return;
        }

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
        r->ratelimit = event_ratelimit_free(r->ratelimit);      /* nothing turns it on again */
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
        Readers *r = userdata;
        int k;

        event_ratelimit_dispatched(r->ratelimit);
        k = readers_flush(r);

        /* A flood loses its precedence: while a batch leaves events queued,
         * timers, the watchdog and varlink callers take turns with it. */
        if (k >= 0)
                (void) sd_event_source_set_priority(s, k > 0 ? SD_EVENT_PRIORITY_NORMAL : SD_EVENT_PRIORITY_IMPORTANT);
        return 0;
}

void readers_set_behind_max(Readers *r, uint64_t usec) {
        r->behind_max = usec;
}

uint64_t readers_behind_lost(Readers *r) {
        return r ? r->behind_lost : 0;
}

bool behind_step(BehindMark *m, uint64_t now, uint64_t consumed, uint64_t queued, uint64_t bound) {
        if (m->at != 0 && consumed >= m->position)
                m->at = 0;      /* all that was queued then is read */
        if (queued == 0) {
                m->at = 0;
                return false;
        }
        if (m->at == 0 || now - m->at >= bound) {
                bool late = m->at != 0;

                *m = (BehindMark) { .at = now, .position = consumed + queued };
                return late;
        }
        return false;
}

/* After a flush: an event waiting longer than the bound, and what is
 * queued counts as lost (once per bound). */
static void check_behind(Readers *r, int queued) {
        uint64_t at = r->behind.at;

        if (!behind_step(&r->behind, now_usec(CLOCK_MONOTONIC), r->consumed, (uint64_t) MAX(queued, 0),
                         r->behind_max))
                return;
        log_debug("Read events waited over %llu ms: taken as lost reads.",
                  (unsigned long long) ((r->behind.at - at) / USEC_PER_MSEC));
        r->behind_lost++;
        r->callback(r, &(ReadEvent) { .overflow = true, .late = true }, r->userdata);
}

int readers_flush(Readers *r) {
        bool warned = false;
        int fd, queued;

        if (!r)
                return 0;
        fd = r->fd;

        for (unsigned batch = 0; batch < READERS_BATCH_READS; batch++) {
                /* Big enough for many events; the kernel never splits one. */
                char buf[8192] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
                ssize_t n;

                n = read(fd, buf, sizeof buf);
                if (n < 0) {
                        if (errno == EAGAIN) {
                                check_behind(r, 0);
                                return 0;
                        }
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
                r->consumed += (uint64_t) n;
                if (!readers_process(r, buf, (size_t) n))
                        return -1;      /* r may be gone */
        }
        queued = readers_pending(r);
        check_behind(r, queued);
        return queued > 0 ? 1 : 0;
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
                .behind_max = READERS_BEHIND_MAX_USEC,
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
        k = event_ratelimit_new(r->source, READERS_RATELIMIT_USEC, READERS_BURST, &r->ratelimit);
        if (k < 0)
                return k;

        *ret = TAKE_PTR(r);
        return 0;
}
