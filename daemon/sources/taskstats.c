/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "event-ratelimit.h"
#include "event-util.h"
#include "log.h"
#include "macro.h"
#include "nl-util.h"
#include "rootfs.h"
#include "strutil.h"
#include "taskstats.h"
#include "time-util.h"

/* About 600 bytes a record with its headers: 4 MiB hold some 7,000 exits,
 * what a busy machine has in the time the rate limit below can leave
 * them queued. Root may exceed net.core.rmem_max (SO_RCVBUFFORCE). */
#define TASKSTATS_RCVBUF (4 * 1024 * 1024)

/* The io source wakes at most this often: a fork storm is read in batches
 * (the kernel sends one record per thread, every exit on the system). A
 * read waiting for its record does not wait for this: the manager drains
 * at once and polls (see manager.c). */
#define TASKSTATS_RATELIMIT_INTERVAL (100 * USEC_PER_MSEC)
#define TASKSTATS_RATELIMIT_BURST 10

#define TASKSTATS_BUCKETS 1024          /* of the pid index */

struct Taskstats {
        struct nl_sock *sk;
        int family;
        sd_event_source *io;
        EventRatelimit *io_ratelimit;
        sd_event_source *news;  /* one-shot: tells the owner of records a fetch read */
        TaskstatsCallback callback;
        void *userdata;

        TaskExit recent[TASKSTATS_RECENT];     /* a ring of process exits */
        size_t n_recent;                       /* ever added; the ring holds the last TASKSTATS_RECENT */
        /* An index by pid, newest first: bucket[hash] and older[slot] hold
         * an entry's sequence number + 1 (0: none). A link to an entry the
         * ring has overwritten since is seen as stale by its number. */
        size_t bucket[TASKSTATS_BUCKETS];
        size_t older[TASKSTATS_RECENT];
        TaskstatsStats stats;
        bool logged_error;
};

/* ---- parsing (pure) ---- */

/* The end of a field in struct taskstats: a record of this length or more
 * carries it (fields are only ever appended). */
#define FIELD_END(f) (offsetof(struct taskstats, f) + sizeof(((struct taskstats *) 0)->f))

#if TASKSTATS_VERSION >= 12
_Static_assert(offsetof(TaskstatsRecord, v12.ac_tgid) == offsetof(struct taskstats, ac_tgid), "v12 layout");
_Static_assert(offsetof(TaskstatsRecord, v12.ac_exe_dev) == offsetof(struct taskstats, ac_exe_dev), "v12 layout");
_Static_assert(TASKSTATS_V12_END == FIELD_END(ac_exe_inode), "v12 layout");
#endif

int taskstats_parse_stats(const void *data, size_t len, TaskExit *ret) {
        TaskstatsRecord r = {};
        const struct taskstats *ts = &r.header;
        TaskExit e = {};

        if (!data || len < FIELD_END(ac_btime))
                return -EBADMSG;
        /* Newer kernels send more than we know: copy what we know. */
        memcpy(&r, data, MIN(len, sizeof r));
        if (ts->version == 0)
                return -EBADMSG;

        e.version = ts->version;
        e.pid = (pid_t) ts->ac_pid;
        e.ppid = (pid_t) ts->ac_ppid;
        e.uid = (uid_t) ts->ac_uid;
        e.began = ts->ac_btime;
        memcpy(e.comm, ts->ac_comm, MIN(sizeof ts->ac_comm, sizeof e.comm - 1));
        if (ts->version >= 12) {
                if (len < TASKSTATS_V12_END)
                        return -EBADMSG;
                e.tgid = (pid_t) r.v12.ac_tgid;
                /* Zero for kernel threads: no binary. */
                e.has_exe = r.v12.ac_exe_dev != 0 || r.v12.ac_exe_inode != 0;
                e.exe_dev = r.v12.ac_exe_dev;
                e.exe_ino = r.v12.ac_exe_inode;
        }
        *ret = e;
        return 0;
}

bool task_exit_is_process(const TaskExit *e) {
        /* Before version 12 the thread group is unknown: a one-off reader is
         * single-threaded, and its one record is its pid's. */
        return e->tgid == 0 || e->tgid == e->pid;
}

int taskstats_parse_datagram(const void *buf, size_t len, int family,
                             void (*cb)(const TaskExit *e, void *userdata), void *userdata) {
        struct nlmsghdr *h = (struct nlmsghdr *) buf;
        int remaining = len > INT_MAX ? INT_MAX : (int) len, n = 0;

        if (!buf)
                return -EBADMSG;
        for (; nlmsg_ok(h, remaining); h = nlmsg_next(h, &remaining)) {
                struct nlattr *attrs[TASKSTATS_TYPE_MAX + 1], *aggr[TASKSTATS_TYPE_MAX + 1];
                TaskExit e;

                if (h->nlmsg_type != family)
                        continue;       /* acks, errors, NLMSG_DONE */
                if (genlmsg_parse(h, 0, attrs, TASKSTATS_TYPE_MAX, NULL) < 0)
                        return -EBADMSG;
                /* The per-thread record; the thread group's aggregate
                 * (TASKSTATS_TYPE_AGGR_TGID) has its identity fields empty. */
                if (!attrs[TASKSTATS_TYPE_AGGR_PID])
                        continue;
                if (nla_parse_nested(aggr, TASKSTATS_TYPE_MAX, attrs[TASKSTATS_TYPE_AGGR_PID], NULL) < 0 ||
                    !aggr[TASKSTATS_TYPE_STATS])
                        return -EBADMSG;
                if (taskstats_parse_stats(nla_data(aggr[TASKSTATS_TYPE_STATS]),
                                          (size_t) nla_len(aggr[TASKSTATS_TYPE_STATS]), &e) < 0)
                        return -EBADMSG;
                cb(&e, userdata);
                n++;
        }
        return n;
}

/* ---- the listener ---- */

static size_t pid_bucket(pid_t pid) {
        return (size_t) pid * 2654435761u % TASKSTATS_BUCKETS;
}

/* Whether sequence number seq is still in the ring. */
static bool kept(const Taskstats *t, size_t seq) {
        return seq < t->n_recent && t->n_recent - seq <= TASKSTATS_RECENT;
}

static void taskstats_keep(const TaskExit *e, void *userdata) {
        Taskstats *t = userdata;
        size_t slot = t->n_recent % TASKSTATS_RECENT, *head = &t->bucket[pid_bucket(e->pid)];

        t->stats.records++;
        t->stats.version = e->version;
        if (!task_exit_is_process(e))
                return;         /* another thread: nothing a read event names */
        t->recent[slot] = *e;
        t->recent[slot].received = now_usec(CLOCK_MONOTONIC);
        t->older[slot] = *head;
        *head = t->n_recent + 1;
        t->n_recent++;
        t->stats.processes++;
}

/* The io source reads a batch per wakeup: a fork/exit flood does not hold
 * the loop. */
#define TASKSTATS_BATCH_MAX 256
/* A drain for a lookup reads on until the queue is empty, which the socket
 * buffer bounds; this bounds it too, should exits come faster than they
 * are read. */
#define TASKSTATS_DRAIN_MAX (2 * TASKSTATS_RECENT)

/* Reads up to max datagrams into the ring. Returns whether a process's
 * record came. */
static bool taskstats_read(Taskstats *t, unsigned max) {
        uint64_t before = t->stats.processes;

        for (unsigned i = 0; i < max; i++) {
                _cleanup_free_ unsigned char *buf = NULL;
                struct sockaddr_nl nla = {};
                int n;

                n = nl_recv(t->sk, &nla, &buf, NULL);
                if (n == 0 || n == -NLE_AGAIN)
                        break;
                if (n < 0) {
                        /* The queue overflowed (libnl reports ENOBUFS as
                         * NOMEM, errno tells): records were lost, reading
                         * goes on. */
                        if (n == -NLE_NOMEM && errno == ENOBUFS) {
                                t->stats.overflows++;
                                continue;
                        }
                        if (!t->logged_error)
                                log_warning_errno(errno_from_nl(n), "Cannot receive taskstats exit records: %m");
                        t->logged_error = true;
                        break;
                }
                if (nla.nl_pid != 0)
                        continue;       /* only the kernel's */
                if (taskstats_parse_datagram(buf, (size_t) n, t->family, taskstats_keep, t) < 0)
                        log_debug("Ignoring a malformed taskstats datagram (%d bytes).", n);
        }
        return t->stats.processes != before;
}

/* A fetch runs inside someone else's handling (a lookup for the read being
 * handled): calling back there would handle other reads nested in it. The
 * news waits for the loop's next turn, as the io source's would. */
void taskstats_fetch(Taskstats *t) {
        if (t && taskstats_read(t, TASKSTATS_DRAIN_MAX))
                (void) sd_event_source_set_enabled(t->news, SD_EVENT_ONESHOT);
}

static int on_taskstats_news(sd_event_source *s, void *userdata) {
        Taskstats *t = userdata;

        if (t->callback)
                t->callback(t, t->userdata);
        return 0;
}

static int on_taskstats_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Taskstats *t = userdata;

        event_ratelimit_dispatched(t->io_ratelimit);
        if (taskstats_read(t, TASKSTATS_BATCH_MAX) && t->callback) {
                (void) sd_event_source_set_enabled(t->news, SD_EVENT_OFF);      /* told now */
                t->callback(t, t->userdata);
        }
        return 0;
}

/* pid's records received at or after not_before, newest first (the
 * chain's entries grow older), into ret until max are found; how many. */
static size_t records_of(const Taskstats *t, pid_t pid, uint64_t not_before, const TaskExit **ret, size_t max) {
        size_t n = 0;

        if (!t)
                return 0;
        for (size_t link = t->bucket[pid_bucket(pid)]; link > 0 && kept(t, link - 1) && n < max;) {
                size_t slot = (link - 1) % TASKSTATS_RECENT;
                const TaskExit *e = &t->recent[slot];

                if (e->received < not_before)
                        break;
                if (e->pid == pid)
                        ret[n++] = e;
                link = t->older[slot];
        }
        return n;
}

const TaskExit *taskstats_find(const Taskstats *t, pid_t pid, uint64_t not_before) {
        const TaskExit *e;

        return records_of(t, pid, not_before, &e, 1) > 0 ? e : NULL;
}

const TaskExit *task_exit_pick(const TaskExit *const *records, size_t n, const ExitQuery *q) {
        const TaskExit *found = NULL;

        for (size_t i = 0; i < n; i++) {
                const TaskExit *e = records[i];

                if (e->pid != q->pid || e->received < q->not_before || e->began > q->read_by + 1 ||
                    (q->has_uid && e->uid != q->uid))
                        continue;
                if (found)
                        return NULL;    /* two lives of pid could have read */
                found = e;
        }
        return found;
}

const TaskExit *taskstats_find_reader(const Taskstats *t, const ExitQuery *q) {
        const TaskExit *candidates[17];
        size_t n = records_of(t, q->pid, q->not_before, candidates, ELEMENTSOF(candidates));

        if (n == ELEMENTSOF(candidates))
                return NULL;    /* pid reused this often in a second: none is sure */
        return task_exit_pick(candidates, n, q);
}

TaskstatsStats taskstats_stats(const Taskstats *t) {
        return t ? t->stats : (TaskstatsStats) {};
}

Taskstats *taskstats_free(Taskstats *t) {
        if (!t)
                return NULL;
        event_ratelimit_free(t->io_ratelimit);
        sd_event_source_disable_unref(t->io);
        sd_event_source_disable_unref(t->news);
        /* Closing the socket deregisters it: the kernel drops listeners
         * whose socket is gone. */
        if (t->sk)
                nl_socket_free(t->sk);
        free(t);
        return NULL;
}

/* "0-3,8-11": the CPUs that may ever exist, so that a CPU onlined later
 * is covered. The daemon's kernel, not --root's tree. */
static int possible_cpus(char **ret) {
        char *s;
        int r;

        r = root_read_file("/", "/sys/devices/system/cpu/possible", 4096, &s);
        if (r < 0)
                return r;
        s[strcspn(s, "\n")] = '\0';
        if (isempty(s)) {
                free(s);
                return -ENODATA;
        }
        *ret = s;
        return 0;
}

static int taskstats_register(Taskstats *t) {
        _cleanup_free_ char *cpus = NULL;
        struct nl_msg *msg;
        int r;

        r = possible_cpus(&cpus);
        if (r < 0)
                return r;
        msg = nlmsg_alloc();
        if (!msg)
                return -ENOMEM;
        if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, t->family, 0, NLM_F_ACK, TASKSTATS_CMD_GET,
                         TASKSTATS_VERSION) ||
            nla_put_string(msg, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus) < 0) {
                nlmsg_free(msg);
                return -ENOMEM;
        }
        r = nl_send_auto(t->sk, msg);
        nlmsg_free(msg);
        if (r < 0)
                return -errno_from_nl(r);
        /* Without CAP_NET_ADMIN the kernel answers EPERM here. */
        r = nl_wait_for_ack(t->sk);
        return r < 0 ? -errno_from_nl(r) : 0;
}

int taskstats_new(sd_event *event, TaskstatsCallback cb, void *userdata, Taskstats **ret) {
        _cleanup_(taskstats_freep) Taskstats *t = NULL;
        int r, size = TASKSTATS_RCVBUF;

        if (!event || !ret)
                return -EINVAL;
        t = calloc(1, sizeof *t);
        if (!t)
                return -ENOMEM;
        t->callback = cb;
        t->userdata = userdata;
        t->sk = nl_socket_alloc();
        if (!t->sk)
                return -ENOMEM;
        r = genl_connect(t->sk);
        if (r < 0)
                return -errno_from_nl(r);
        t->family = genl_ctrl_resolve(t->sk, TASKSTATS_GENL_NAME);
        if (t->family < 0)
                return t->family == -NLE_OBJ_NOTFOUND ? -ENOENT : -errno_from_nl(t->family);
        r = taskstats_register(t);
        if (r < 0)
                return r;

        /* Records come unasked, without sequence numbers. */
        nl_socket_disable_seq_check(t->sk);
        r = nl_socket_set_nonblocking(t->sk);
        if (r < 0)
                return -errno_from_nl(r);
        if (setsockopt(nl_socket_get_fd(t->sk), SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0 &&
            setsockopt(nl_socket_get_fd(t->sk), SOL_SOCKET, SO_RCVBUF, &size, sizeof size) < 0)
                log_debug_errno(errno, "Cannot enlarge the taskstats receive buffer: %m");

        r = sd_event_add_io(event, &t->io, nl_socket_get_fd(t->sk), EPOLLIN, on_taskstats_io, t);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(t->io, "taskstats");
        r = event_ratelimit_new(t->io, TASKSTATS_RATELIMIT_INTERVAL, TASKSTATS_RATELIMIT_BURST, &t->io_ratelimit);
        if (r < 0)
                return r;
        r = sd_event_add_defer(event, &t->news, on_taskstats_news, t);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(t->news, "taskstats-news");
        r = sd_event_source_set_enabled(t->news, SD_EVENT_OFF);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(t);
        return 0;
}
