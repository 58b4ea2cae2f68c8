/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kmsg.h"
#include "log.h"
#include "macro.h"
#include "rootfs.h"
#include "string-table.h"
#include "strutil.h"

static const char *const kmsg_numa_table[_KMSG_NUMA_MAX] = {
        [KMSG_NUMA_NONE] = "none",
        [KMSG_NUMA_STRICT] = "strict",
        [KMSG_NUMA_COARSE] = "coarse",
        [KMSG_NUMA_AUTO_ARMED] = "auto-armed",
        [KMSG_NUMA_AUTO_ON] = "auto-on",
        [KMSG_NUMA_AUTO_TRIGGERED] = "auto-triggered",
        [KMSG_NUMA_MAINLINE_ON] = "mainline-on",
        [KMSG_NUMA_MAINLINE_OFF] = "mainline-off",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(kmsg_numa, KmsgNuma)

/* The messages, as the kernel prints them: seed 003 v3 as forward-ported
 * in tests/vm/patches/5.10, the same under the v1/v2 "vmstat_mode" name
 * (assumed: no v1/v2 kernel is at hand), and mainline's vm.numa_stat
 * handler. */
static const struct {
        const char *text;
        KmsgNuma what;
} messages[] = {
        { "numa_stats_mode: strict, enable numa statistics", KMSG_NUMA_STRICT },
        { "numa_stats_mode: coarse, disable numa statistics", KMSG_NUMA_COARSE },
        { "numa_stats_mode: auto, numa statistics enabled at the next read", KMSG_NUMA_AUTO_ARMED },
        { "numa_stats_mode: auto, numa statistics stay enabled", KMSG_NUMA_AUTO_ON },
        { "numa_stats_mode: auto, enable numa statistics on read", KMSG_NUMA_AUTO_TRIGGERED },
        { "vmstat_mode: strict, enable numa statistics", KMSG_NUMA_STRICT },
        { "vmstat_mode: coarse, disable numa statistics", KMSG_NUMA_COARSE },
        { "vmstat_mode: auto, numa statistics enabled at the next read", KMSG_NUMA_AUTO_ARMED },
        { "vmstat_mode: auto, numa statistics stay enabled", KMSG_NUMA_AUTO_ON },
        { "vmstat_mode: auto, enable numa statistics on read", KMSG_NUMA_AUTO_TRIGGERED },
        { "enable numa statistics", KMSG_NUMA_MAINLINE_ON },
        { "disable numa statistics, and clear numa counters", KMSG_NUMA_MAINLINE_OFF },
};

KmsgNuma kmsg_parse_record(const char *record, size_t len, uint64_t *ret_seq) {
        const char *semi, *msg, *eol, *comma, *end = record + len;
        size_t n;

        if (ret_seq)
                *ret_seq = 0;
        /* "PRIO,SEQ,TS,FLAGS;MESSAGE": the prefix has no ';' before the message. */
        semi = memchr(record, ';', len);
        if (!semi)
                return KMSG_NUMA_NONE;
        comma = memchr(record, ',', semi - record);
        if (comma && ret_seq) {
                uint64_t seq = 0;
                const char *p = comma + 1;
                for (; p < semi && *p >= '0' && *p <= '9'; p++)
                        seq = seq * 10 + (uint64_t) (*p - '0');
                if (p < semi && *p == ',')
                        *ret_seq = seq;
        }
        /* The kernel's own messages have facility 0 (LOG_KERN): PRIO is the
         * level alone. A record written to /dev/kmsg from user space has
         * LOG_USER (PRIO 8 and up) and is not the kernel speaking. */
        if (!comma || comma == record || comma - record > 1 || record[0] < '0' || record[0] > '7')
                return KMSG_NUMA_NONE;
        msg = semi + 1;
        eol = memchr(msg, '\n', end - msg);
        n = (eol ? eol : end) - msg;
        /* Exact lines, not prefixes: "enable numa statistics" is also the
         * tail of the patched kernel's messages. */
        for (size_t i = 0; i < ELEMENTSOF(messages); i++) {
                size_t l = strlen(messages[i].text);
                if (n >= l && memcmp(msg, messages[i].text, l) == 0 &&
                    (n == l || msg[l] == ',' || msg[l] == '\r'))
                        return messages[i].what;
        }
        return KMSG_NUMA_NONE;
}

struct KmsgMonitor {
        sd_event_source *source;
        int fd;
        KmsgCallback callback;
        void *userdata;
        bool stream;            /* a FIFO (tests): many records per read, split at newlines */
        char partial[1024];     /* a stream's unfinished line */
        size_t n_partial;
};

KmsgMonitor *kmsg_monitor_free(KmsgMonitor *k) {
        if (!k)
                return NULL;
        sd_event_source_disable_unref(k->source);
        if (k->fd >= 0)
                close(k->fd);
        free(k);
        return NULL;
}

/* A record's word, counted by kind: the caller's tally, or the loop's. */
static void kmsg_dispatch(const char *record, size_t len, unsigned counts[static _KMSG_NUMA_MAX]) {
        counts[kmsg_parse_record(record, len, NULL)]++;
}

/* A stream's bytes: complete lines are records; continuation lines (a
 * leading space: the record's dictionary) are skipped. */
static void kmsg_stream(KmsgMonitor *k, const char *buf, size_t n, unsigned counts[static _KMSG_NUMA_MAX]) {
        for (size_t i = 0; i < n; i++) {
                if (buf[i] != '\n') {
                        if (k->n_partial < sizeof k->partial - 1)
                                k->partial[k->n_partial++] = buf[i];
                        continue;
                }
                if (k->n_partial > 0 && k->partial[0] != ' ')
                        kmsg_dispatch(k->partial, k->n_partial, counts);
                k->n_partial = 0;
        }
}

#define KMSG_BATCH_MAX 64

size_t kmsg_monitor_take(KmsgMonitor *k, unsigned counts[static _KMSG_NUMA_MAX]) {
        size_t n_numa = 0;

        memset(counts, 0, sizeof(unsigned) * _KMSG_NUMA_MAX);
        if (!k)
                return 0;
        /* Bounded: a burst of kernel messages is read a batch per wakeup. */
        for (unsigned i = 0; i < KMSG_BATCH_MAX; i++) {
                /* /dev/kmsg hands out one record per read; 8 KiB holds any. */
                char buf[8192];
                ssize_t n = read(k->fd, buf, sizeof buf);

                if (n < 0) {
                        if (errno == EINTR || errno == EPIPE)
                                continue;       /* EPIPE: records were overwritten; go on */
                        if (errno != EAGAIN)
                                log_debug_errno(errno, "Reading the kernel log failed: %m");
                        break;
                }
                if (n == 0)
                        break;
                if (k->stream)
                        kmsg_stream(k, buf, (size_t) n, counts);
                else
                        kmsg_dispatch(buf, (size_t) n, counts);
        }
        for (int w = KMSG_NUMA_NONE + 1; w < _KMSG_NUMA_MAX; w++)
                n_numa += counts[w];
        return n_numa;
}

/* The loop's own wakeup: what was logged since the last take, by kind. */
static int on_kmsg(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        KmsgMonitor *k = userdata;
        unsigned counts[_KMSG_NUMA_MAX];

        if (kmsg_monitor_take(k, counts) > 0)
                k->callback(k, counts, k->userdata);
        return 0;
}

int kmsg_monitor_new(sd_event *event, const char *root, KmsgCallback cb, void *userdata, KmsgMonitor **ret) {
        _cleanup_(kmsg_monitor_freep) KmsgMonitor *k = NULL;
        _cleanup_free_ char *path = NULL;
        struct stat st;
        int r;

        r = root_path(root, "/dev/kmsg", &path);
        if (r < 0)
                return r;
        k = calloc(1, sizeof *k);
        if (!k)
                return -ENOMEM;
        *k = (KmsgMonitor) { .fd = -1, .callback = cb, .userdata = userdata };

        if (stat(path, &st) < 0)
                return -errno;
        k->stream = S_ISFIFO(st.st_mode);
        /* A FIFO opened for reading alone reports a hang-up while no writer
         * is there; holding the write end too keeps it quiet. */
        k->fd = open(path, (k->stream ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (k->fd < 0)
                return -errno;
        /* Only what the kernel logs from now on. */
        if (!k->stream && lseek(k->fd, 0, SEEK_END) < 0)
                return -errno;

        r = sd_event_add_io(event, &k->source, k->fd, EPOLLIN, on_kmsg, k);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(k->source, "kmsg");
        *ret = TAKE_PTR(k);
        return 0;
}
