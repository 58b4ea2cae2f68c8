/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/taskstats.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "macro.h"
#include "tap.h"
#include "taskstats.h"
#include "time-util.h"

#define FAMILY 27       /* any id: the parser only compares it */

static TaskstatsRecord record(uint16_t version, pid_t pid, pid_t tgid, const char *comm) {
        TaskstatsRecord r = {};

        r.header.version = version;
        r.header.ac_pid = (uint32_t) pid;
        r.header.ac_ppid = 1;
        r.header.ac_uid = 1000;
        r.header.ac_btime = 1764900000;
        r.v12.ac_tgid = (uint32_t) tgid;
        r.v12.ac_exe_dev = 0x803;
        r.v12.ac_exe_inode = 424242;
        strncpy(r.header.ac_comm, comm, sizeof r.header.ac_comm - 1);
        return r;
}

/* One netlink message as the kernel sends an exit: AGGR_PID {PID, STATS}
 * and, for the last thread of a group, AGGR_TGID {TGID, STATS}. len: of
 * the STATS payload (a kernel's struct may be shorter or longer). */
static struct nl_msg *exit_message(const TaskstatsRecord *ts, size_t len, bool with_tgid) {
        struct nl_msg *msg = nlmsg_alloc();
        struct nlattr *nest;
        unsigned char payload[sizeof *ts + 64] = {};

        memcpy(payload, ts, MIN(len, sizeof *ts));
        genlmsg_put(msg, 0, 0, FAMILY, 0, 0, TASKSTATS_CMD_NEW, TASKSTATS_VERSION);
        nest = nla_nest_start(msg, TASKSTATS_TYPE_AGGR_PID);
        nla_put_u32(msg, TASKSTATS_TYPE_PID, ts->header.ac_pid);
        nla_put(msg, TASKSTATS_TYPE_STATS, (int) len, payload);
        nla_nest_end(msg, nest);
        if (with_tgid) {
                TaskstatsRecord agg = {};

                agg.header.version = ts->header.version;
                nest = nla_nest_start(msg, TASKSTATS_TYPE_AGGR_TGID);
                nla_put_u32(msg, TASKSTATS_TYPE_TGID, ts->v12.ac_tgid);
                nla_put(msg, TASKSTATS_TYPE_STATS, (int) sizeof agg, &agg);
                nla_nest_end(msg, nest);
        }
        return msg;
}

typedef struct Collected {
        TaskExit e[8];
        size_t n;
} Collected;

static void collect(const TaskExit *e, void *userdata) {
        Collected *c = userdata;

        if (c->n < ELEMENTSOF(c->e))
                c->e[c->n++] = *e;
}

/* Parses a copy of exactly len bytes, so that ASan catches reads past it. */
static int parse_exact(const void *buf, size_t len, Collected *c) {
        _cleanup_free_ void *copy = malloc(len ? len : 1);

        memcpy(copy, buf, len);
        *c = (Collected) {};
        return taskstats_parse_datagram(copy, len, FAMILY, collect, c);
}

static void test_parse(void) {
        TaskstatsRecord ts = record(13, 4242, 4242, "cat");
        struct nl_msg *a = exit_message(&ts, sizeof ts, true), *b;
        TaskstatsRecord thread = record(13, 4243, 4242, "worker");
        unsigned char two[8192];
        size_t la, lb;
        Collected c;

        is_int(parse_exact(nlmsg_hdr(a), nlmsg_hdr(a)->nlmsg_len, &c), 1, "one exit: one record (the group's aggregate is skipped)");
        is_int(c.e[0].pid, 4242, "  pid");
        is_int(c.e[0].tgid, 4242, "  tgid");
        is_int(c.e[0].uid, 1000, "  uid");
        is_u64(c.e[0].began, 1764900000, "  when it began (ac_btime)");
        is_str(c.e[0].comm, "cat", "  comm");
        ok(c.e[0].has_exe && c.e[0].exe_dev == 0x803 && c.e[0].exe_ino == 424242, "  exe device and inode");
        ok(task_exit_is_process(&c.e[0]), "  the main thread: the process's own exit");

        /* Two messages in one datagram, the first another thread's. */
        b = exit_message(&thread, sizeof thread, false);
        la = NLMSG_ALIGN(nlmsg_hdr(b)->nlmsg_len);
        lb = nlmsg_hdr(a)->nlmsg_len;
        memcpy(two, nlmsg_hdr(b), nlmsg_hdr(b)->nlmsg_len);
        memcpy(two + la, nlmsg_hdr(a), lb);
        is_int(parse_exact(two, la + lb, &c), 2, "two messages in one datagram: both");
        ok(!task_exit_is_process(&c.e[0]), "  a thread's exit is not the process's");
        is_str(c.e[1].comm, "cat", "  and the second is the process's");
        nlmsg_free(b);

        /* A newer kernel's longer struct (6.18 sends version 16, 560 bytes). */
        ts.header.version = 16;
        b = exit_message(&ts, sizeof ts + 64, false);
        is_int(parse_exact(nlmsg_hdr(b), nlmsg_hdr(b)->nlmsg_len, &c), 1, "version 16, longer: parses");
        is_str(c.e[0].comm, "cat", "  comm at the same place");
        nlmsg_free(b);

        /* 5.10 sends version 10: no tgid, no exe. */
        ts = record(10, 777, 0, "sadc");
        b = exit_message(&ts, offsetof(TaskstatsRecord, v12.ac_tgid), false);
        is_int(parse_exact(nlmsg_hdr(b), nlmsg_hdr(b)->nlmsg_len, &c), 1, "version 10 (5.10): parses");
        ok(c.e[0].tgid == 0 && !c.e[0].has_exe, "  without tgid and exe");
        ok(task_exit_is_process(&c.e[0]), "  and is taken as the process's (single-threaded one-off readers)");
        nlmsg_free(b);

        /* Version 12 claimed, too short for its exe fields. */
        ts = record(12, 5, 5, "x");
        b = exit_message(&ts, offsetof(TaskstatsRecord, v12.ac_exe_dev), false);
        is_int(parse_exact(nlmsg_hdr(b), nlmsg_hdr(b)->nlmsg_len, &c), -EBADMSG, "version 12, truncated: rejected");
        nlmsg_free(b);

        /* Too short for even version 1's identity. */
        b = exit_message(&ts, 16, false);
        is_int(parse_exact(nlmsg_hdr(b), nlmsg_hdr(b)->nlmsg_len, &c), -EBADMSG, "16 bytes of stats: rejected");
        nlmsg_free(b);

        /* comm exactly TS_COMM_LEN bytes, no NUL: still terminated. */
        ts = record(13, 9, 9, "");
        memset(ts.header.ac_comm, 'a', sizeof ts.header.ac_comm);
        b = exit_message(&ts, sizeof ts, false);
        is_int(parse_exact(nlmsg_hdr(b), nlmsg_hdr(b)->nlmsg_len, &c), 1, "comm without NUL: parses");
        is_int(strlen(c.e[0].comm), TASKSTATS_COMM_MAX, "  terminated at 32 bytes");
        nlmsg_free(b);

        /* Another family's message (an ack) is skipped; a cut datagram is not read past its end. */
        is_int(parse_exact(nlmsg_hdr(a), nlmsg_hdr(a)->nlmsg_len - 8, &c) <= 0, 1, "a cut datagram: no record read past its end");
        nlmsg_free(a);
        is_int(taskstats_parse_stats(NULL, 0, &c.e[0]), -EBADMSG, "no stats: rejected");
}

static void on_exits(Taskstats *t, void *userdata) {
        (*(unsigned *) userdata)++;
}

/* The real kernel: a child that runs /bin/true is named by its exit record. */
/* Whether the kernel offers the TASKSTATS family at all, asked of the
 * generic netlink controller directly: a taskstats_new() that fails on
 * such a kernel is a failure, not a skip. */
static bool kernel_has_taskstats(void) {
        struct nl_sock *sk = nl_socket_alloc();
        bool has = false;

        if (sk && genl_connect(sk) == 0)
                has = genl_ctrl_resolve(sk, TASKSTATS_GENL_NAME) >= 0;
        nl_socket_free(sk);
        return has;
}

/* A daemon that fell behind (stopped, or starved under load) finds, with
 * one fetch, the records of processes that exited long before and just
 * before: a held command's shell, and its first child 1,500 exits ago. */
static void test_backlog(Taskstats *t) {
        enum { N = 1500 };
        pid_t first = 0, last = 0;
        uint64_t start, overflows;

        taskstats_fetch(t);
        overflows = taskstats_stats(t).overflows;
        start = now_usec(CLOCK_MONOTONIC);
        for (int i = 0; i < N; i++) {
                pid_t pid = fork();

                if (pid == 0)
                        _exit(0);
                if (pid < 0)
                        break;
                waitpid(pid, NULL, 0);
                if (i == 0)
                        first = pid;
                last = pid;
        }
        taskstats_fetch(t);
        if (taskstats_stats(t).overflows > overflows)
                return tap_skip("the receive queue overflowed before the fetch (its buffer could not be enlarged?)");
        ok(last > 0 && taskstats_find(t, last, start), "after %d exits queued, one fetch finds the last one's record", N);
        ok(first > 0 && taskstats_find(t, first, start), "  and the first one's");
        ok(first > 0 && !taskstats_find(t, first, now_usec(CLOCK_MONOTONIC) + 1), "  but not as a record newer than it is");
}

/* A record the loop reads itself (the io source) is told at once. */
static void test_loop_reads(sd_event *event, Taskstats *t, unsigned *calls) {
        uint64_t start = now_usec(CLOCK_MONOTONIC);
        unsigned before = *calls;
        pid_t pid = fork();

        if (pid == 0)
                _exit(0);
        if (pid < 0)
                return tap_skip("fork failed");
        waitpid(pid, NULL, 0);
        while (*calls == before && now_usec(CLOCK_MONOTONIC) < start + 5 * USEC_PER_SEC)
                (void) sd_event_run(event, 100 * USEC_PER_MSEC);
        ok(*calls > before && taskstats_find(t, pid, start), "the loop reads a record and calls back");
}

static void test_live(void) {
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        _cleanup_(taskstats_freep) Taskstats *t = NULL;
        const TaskExit *e = NULL;
        unsigned calls = 0;
        struct stat st;
        uint64_t start;
        pid_t pid;
        int r;

        if (sd_event_new(&event) < 0)
                return tap_skip("sd_event_new failed");
        r = taskstats_new(event, on_exits, &calls, &t);
        if (r == -EPERM && geteuid() != 0)
                return tap_skip("taskstats needs CAP_NET_ADMIN: run as root");
        if (r < 0 && !kernel_has_taskstats())
                return tap_skip("no taskstats on this kernel (no TASKSTATS generic netlink family)");
        if (r < 0) {
                errno = -r;
                ok(false, "registered for exit records, on a kernel that has them: %m");
                return;
        }
        ok(true, "registered for exit records");
        start = now_usec(CLOCK_MONOTONIC);
        pid = fork();
        if (pid == 0) {
                execl("/bin/true", "true", (char *) NULL);
                _exit(127);
        }
        waitpid(pid, NULL, 0);
        for (int i = 0; i < 200 && !e; i++) {
                taskstats_fetch(t);
                e = taskstats_find(t, pid, start);
                if (!e)
                        poll(NULL, 0, 5);
        }
        if (!ok(e, "the child's exit record arrives within a second"))
                return;
        is_str(e->comm, "true", "  with its comm");
        is_int(e->uid, getuid(), "  its uid");
        /* A fetch is a lookup inside someone's handling: news of the
         * records it read waits for the loop. */
        is_int(calls, 0, "  a fetch does not call back");
        is_int(sd_event_run(event, 0), 1, "  the loop's next turn dispatches the news");
        is_int(calls, 1, "  and the callback ran");
        if (e->version >= 12 && stat("/bin/true", &st) == 0)
                ok(e->has_exe && e->exe_dev == st.st_dev && e->exe_ino == st.st_ino,
                   "  its binary's device and inode, as stat() reports them");
        else
                tap_skip("taskstats version < 12: no exe fields");
        ok(!taskstats_find(t, pid, now_usec(CLOCK_MONOTONIC) + 1), "a record older than asked for is not found");
        {
                uint64_t now_sec = now_usec(CLOCK_REALTIME) / USEC_PER_SEC;
                ExitQuery q = { .pid = pid, .not_before = start, .read_by = now_sec, .has_uid = true, .uid = getuid() };

                ok(e->began + 2 >= now_sec && e->began <= now_sec, "  it began a moment ago (%llu, now %llu)",
                   (unsigned long long) e->began, (unsigned long long) now_sec);
                ok(taskstats_find_reader(t, &q) == e, "  found as the reader of a read taken now");
                q.uid = getuid() + 1;
                ok(!taskstats_find_reader(t, &q), "  but not for a reader of another uid");
        }
        ok(taskstats_stats(t).processes >= 1, "counted in the stats");
        test_loop_reads(event, t, &calls);
        test_backlog(t);
}

/* A parked read's exit record: pid's, begun by the read, of the reader's
 * uid if known, and only if one life of pid fits. */
static void test_pick(void) {
        TaskExit reader = { .pid = 50, .uid = 1000, .began = 1000, .received = 5000 },
                 later = { .pid = 50, .uid = 1000, .began = 1003, .received = 6000 },
                 other_uid = { .pid = 50, .uid = 0, .began = 999, .received = 5500 },
                 before = { .pid = 50, .uid = 1000, .began = 990, .received = 100 },
                 another_pid = { .pid = 51, .uid = 1000, .began = 1000, .received = 5000 };
        ExitQuery q = { .pid = 50, .not_before = 1000, .read_by = 1001, .has_uid = true, .uid = 1000 };

        ok(task_exit_pick((const TaskExit *[]) { &reader }, 1, &q) == &reader, "the reader's record: picked");
        ok(task_exit_pick((const TaskExit *[]) { &later, &reader }, 2, &q) == &reader,
           "  not the newer one of a process begun after the read (the pid reused)");
        ok(task_exit_pick((const TaskExit *[]) { &other_uid, &reader }, 2, &q) == &reader,
           "  not one of another uid");
        ok(task_exit_pick((const TaskExit *[]) { &before, &another_pid }, 2, &q) == NULL,
           "  not one received before the window, nor another pid's: none");
        ok(task_exit_pick((const TaskExit *[]) { &later }, 1, &q) == NULL, "only a later life of the pid: none");
        q.has_uid = false;
        ok(task_exit_pick((const TaskExit *[]) { &other_uid, &reader }, 2, &q) == NULL,
           "uid unknown, two lives of the pid begun by the read: none (which one read is not known)");
        ok(task_exit_pick((const TaskExit *[]) { &reader }, 1, &q) == &reader, "uid unknown, one: picked");
        q.read_by = 999;
        ok(task_exit_pick((const TaskExit *[]) { &reader }, 1, &q) == &reader,
           "  begun a second after the read by ac_btime's rounding: still picked");
        q.read_by = 998;
        ok(task_exit_pick((const TaskExit *[]) { &reader }, 1, &q) == NULL, "  two seconds: not");
}

int main(void) {
        test_pick();
        test_parse();
        test_live();
        return tap_done();
}
