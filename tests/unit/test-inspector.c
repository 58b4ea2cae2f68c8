/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The inspector: a look into another process runs in a child with the
 * ids that process was seen with, answers through the loop (an answer
 * stands only if the process still runs the same binary with the same
 * ids), is killed at its deadline whatever the process's user does to it,
 * dies with its parent, and is limited by owner and in all, with places
 * only root's looks may take. The process looked into is a child of ours
 * that became uid 65534 with groups of its own. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inspector.h"
#include "macro.h"
#include "owner.h"
#include "parsers.h"
#include "readers.h"
#include "rootfs.h"
#include "spawn.h"
#include "tap.h"

typedef struct Seen {
        uid_t uid, euid;
        gid_t gid, egid;
        int n_groups;
        gid_t groups[4];
        unsigned long long cap_eff;
        int dumpable;
        bool have_root, have_cmdline, have_mountinfo;
        uint64_t root_magic;
        char cmdline[32];
} Seen;

typedef struct Result {
        int calls;
        InspectOutcome outcome;
        Seen seen;
        size_t n_fds;
        bool fds_as_sent;
} Result;

static int work_report(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                       size_t *n_fds) {
        Seen *s = answer;
        _cleanup_free_ char *status = NULL;
        const char *cap;

        s->uid = getuid();
        s->euid = geteuid();
        s->gid = getgid();
        s->egid = getegid();
        s->n_groups = getgroups(ELEMENTSOF(s->groups), s->groups);
        s->dumpable = prctl(PR_GET_DUMPABLE);
        if (root_read_file("/", "/proc/self/status", 64 * 1024, &status) >= 0 && (cap = strstr(status, "CapEff:")))
                s->cap_eff = strtoull(cap + strlen("CapEff:"), NULL, 16);
        else
                s->cap_eff = ~0ULL;
        s->have_root = p->rootfd >= 0;
        s->root_magic = p->root_magic;
        s->have_mountinfo = inspected_mountinfo(p) && strstr(inspected_mountinfo(p), " / ");
        s->have_cmdline = p->cmdlinefd >= 0 && read(p->cmdlinefd, s->cmdline, sizeof s->cmdline - 1) > 0;
        return 0;
}

/* Whether the root may block, told with no mount table to read. */
static int work_may_block(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                          size_t *n_fds) {
        Seen *s = answer;

        close(p->mountinfofd);  /* the child's own copy */
        s->have_mountinfo = inspected_root_may_block(p);
        return 0;
}

_Noreturn static int work_hang(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                               size_t *n_fds) {
        for (;;)
                pause();
}

/* Hands back two fds: its root (a directory) and /dev/null. */
static int work_fds(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                    size_t *n_fds) {
        fds[0] = dup(p->rootfd);
        fds[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        *n_fds = 2;
        return fds[0] >= 0 && fds[1] >= 0 ? 0 : -EIO;
}

/* Answers once the file go_path names exists (set before the fork). */
static char go_path[64];

static int work_wait(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                     size_t *n_fds) {
        for (int i = 0; i < 10000 && access(go_path, F_OK) < 0; i++)
                usleep(1000);
        return access(go_path, F_OK);
}

static int work_fail(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                     size_t *n_fds) {
        return -EIO;
}

static void on_done(Inspector *in, InspectOutcome outcome, const void *answer, int *fds, size_t n_fds, void *token,
                    void *userdata) {
        Result *r = token;

        struct stat a, b;

        r->calls++;
        r->outcome = outcome;
        r->n_fds = n_fds;
        if (n_fds == 2) {
                r->fds_as_sent = fstat(fds[0], &a) >= 0 && S_ISDIR(a.st_mode) && fstat(fds[1], &b) >= 0 &&
                                 S_ISCHR(b.st_mode);
                close(fds[0]);
                fds[0] = -1;    /* taken; the other is closed by the inspector */
        }
        if (outcome == INSPECT_ANSWERED)
                memcpy(&r->seen, answer, sizeof r->seen);
}

static int on_give_up(sd_event_source *s, uint64_t usec, void *userdata) {
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* Runs the loop until want() holds, or 10 s pass (a failure, not a wait). */
static bool run_until(sd_event *e, bool (*want)(void *), void *arg) {
        _cleanup_(sd_event_source_unrefp) sd_event_source *limit = NULL;

        if (sd_event_add_time_relative(e, &limit, CLOCK_MONOTONIC, 10 * USEC_PER_SEC, 0, on_give_up, NULL) < 0)
                return false;
        while (!want(arg))
                if (sd_event_run(e, UINT64_MAX) < 0 || sd_event_get_state(e) == SD_EVENT_FINISHED)
                        return false;
        return true;
}

static bool called(void *p) {
        return ((Result *) p)->calls > 0;
}

static bool called_twice(void *p) {
        return ((Result *) p)->calls > 1;
}

static bool none_running(void *p) {
        return inspector_running(p) == 0;
}

/* Writes half an answer and exits: what a child killed mid-send, or gone
 * wrong, leaves. */
static int work_short(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                      size_t *n_fds) {
        (void) send(3, "half", 4, MSG_NOSIGNAL);
        _exit(0);
}

static void on_exec_signal(int sig) {
        execl("/bin/sleep", "sleep", "1000", (char *) NULL);
        _exit(101);
}

/* A process of uid and gid 65534 with supplementary groups 65534 and 100,
 * waiting to be looked into; SIGUSR1 makes it run another binary (same
 * pid, same start time). */
static void target_body(int ready, void *userdata) {
        gid_t groups[] = { 65534, 100 };

        signal(SIGUSR1, on_exec_signal);
        become_nobody(groups, ELEMENTSOF(groups));
        (void) write(ready, "x", 1);
        for (;;)
                pause();
}

/* The target as the daemon would ask for it: its start time, its ids and
 * binary as seen now, owner 65534. */
static pid_t target_new(InspectTarget *t) {
        _cleanup_free_ char *stat = NULL;
        pid_t pid = fork_ready(target_body, NULL);
        char path[64];
        uid_t uid;

        snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
        if (root_read_file("/", path, 4096, &stat) < 0 || proc_stat_starttime(stat, &t->start) < 0 ||
            process_ids(pid, &t->ids) < 0 || process_binary(pid, &uid, &t->exe_dev, &t->exe_ino) < 0)
                abort();
        t->pid = pid;
        t->owner = 65534;
        t->has_exe_id = true;
        return pid;
}

static void target_free(pid_t pid) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

/* Our children but not, the look's children (single-threaded: our one
 * task's list). */
static size_t look_children(pid_t not, pid_t *ret, size_t max) {
        _cleanup_free_ char *text = NULL;
        char path[64];
        size_t n = 0;

        snprintf(path, sizeof path, "/proc/self/task/%d/children", (int) getpid());
        if (root_read_file("/", path, 4096, &text) < 0)
                return 0;
        for (char *p = text, *end; n < max; p = end) {
                long pid = strtol(p, &end, 10);

                if (end == p)
                        break;
                if (pid != not)
                        ret[n++] = (pid_t) pid;
        }
        return n;
}

/* Waits until the look's child pid took uid 65534 (or is gone). */
static bool became_nobody(pid_t pid) {
        for (int i = 0; i < 5000; i++) {
                ProcIds ids;

                if (process_ids(pid, &ids) < 0)
                        return false;
                if (ids.uid[0] == 65534)
                        return true;
                usleep(1000);
        }
        return false;
}

/* Sends sig to pid as uid 65534 would (the process's user): 0 or an errno. */
static int signal_as_nobody(pid_t pid, int sig) {
        int status;
        pid_t child;

        if (!became_nobody(pid))
                return -1;
        child = fork();

        if (child == 0) {
                if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                        _exit(100);
                _exit(kill(pid, sig) < 0 ? errno : 0);
        }
        if (child < 0 || waitpid(child, &status, 0) < 0 || !WIFEXITED(status))
                return -1;
        return WEXITSTATUS(status);
}

/* Whether pid is gone, or dead and waiting for a reaper (our init may
 * take its time). */
static bool dead(pid_t pid) {
        _cleanup_free_ char *stat = NULL;
        const char *f;
        char path[64];

        snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
        if (root_read_file("/", path, 4096, &stat) < 0)
                return true;
        f = proc_stat_fields(stat);
        return f && (f[0] == 'Z' || f[0] == 'X');
}

/* CAP_KILL in our effective set, or not (it stays permitted): the unit
 * without it, as it was. */
static void cap_kill_effective(bool on) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2];

        if (syscall(SYS_capget, &h, d) < 0)
                abort();
        if (on)
                d[0].effective |= 1u << CAP_KILL;
        else
                d[0].effective &= ~(1u << CAP_KILL);
        if (syscall(SYS_capset, &h, d) < 0)
                abort();
}

static const InspectLimits limits = { .slots = INSPECT_MAX, .root_slots = 1, .per_owner = 3, .linger = 2 };

static void test_answers(sd_event *e, Inspector *in, InspectTarget t) {
        Result r = {}, r2 = {};
        char request[8] = "ask";

        ok(inspector_ask(in, &t, work_report, request, sizeof request, &r) == 0, "a look starts");
        ok(inspector_ask(in, &t, work_report, request, sizeof request, &r2) == 0, "  the same look asked again joins it");
        is_int((int) inspector_running(in), 1, "  one child for both");
        ok(r.calls == 0, "  no answer from inside the call");
        ok(run_until(e, called, &r2) && r.calls == 1 && r2.calls == 1, "each asker is answered once");
        ok(r.outcome == INSPECT_ANSWERED && r2.outcome == INSPECT_ANSWERED, "  with an answer");
        ok(r.seen.uid == 65534 && r.seen.euid == 65534 && r.seen.gid == 65534 && r.seen.egid == 65534,
           "  made as the process: its uid and gid");
        ok(r.seen.n_groups == 2 && ((r.seen.groups[0] == 65534 && r.seen.groups[1] == 100) ||
                                    (r.seen.groups[0] == 100 && r.seen.groups[1] == 65534)),
           "  its groups, not ours");
        is_u64(r.seen.cap_eff, 0, "  no capabilities");
        is_int(r.seen.dumpable, 0, "  not dumpable: the process cannot ptrace a copy of the daemon");
        ok(r.seen.have_root && r.seen.have_mountinfo && r.seen.have_cmdline,
           "  with its root, mountinfo and command line opened before");
        {
                struct statfs sfs;
                struct utsname u;

                /* statmount() with a namespace id: Linux 6.11 and later. */
                if (uname(&u) == 0 && strverscmp(u.release, "6.11") < 0)
                        tap_skip("the kernel is older than 6.11: no statmount() by namespace");
                else {
                        ok(statfs("/", &sfs) == 0 && r.seen.root_magic == (uint64_t) sfs.f_type,
                           "  its root's file system told by the kernel (0x%llx)",
                           (unsigned long long) r.seen.root_magic);
                        ok(run_until(e, none_running, in), "  reaped");
                        r = (Result) {};
                        request[4] = 'm';
                        ok(inspector_ask(in, &t, work_may_block, request, sizeof request, &r) == 0 &&
                                   run_until(e, called, &r) && r.outcome == INSPECT_ANSWERED && !r.seen.have_mountinfo,
                           "  so a root that is not FUSE may be looked into with no mount table read");
                        request[4] = 0;
                }
        }
        ok(run_until(e, none_running, in), "the child is reaped");

        r = (Result) {};
        request[4] = 'f';
        ok(inspector_ask(in, &t, work_fds, request, sizeof request, &r) == 0 && run_until(e, called, &r) &&
                   r.outcome == INSPECT_ANSWERED && r.n_fds == 2 && r.fds_as_sent,
           "an answer carries the fds the look opened (a directory, a device)");
        ok(run_until(e, none_running, in), "  reaped");
}

/* Every way a look can fail to answer is told as such, never as an answer. */
static void test_no_answer(sd_event *e, Inspector *in, InspectTarget t) {
        char request[8] = "bad";
        Result r = {};
        InspectTarget u;

        u = t;
        u.start++;
        ok(inspector_ask(in, &u, work_report, request, sizeof request, &r) == 0 && run_until(e, called, &r) &&
                   r.outcome == INSPECT_FAILED,
           "a pid whose start time is not the one asked about: no answer");
        r = (Result) {};
        ok(inspector_ask(in, &t, work_fail, request, sizeof request, &r) == 0 && run_until(e, called, &r) &&
                   r.outcome == INSPECT_FAILED,
           "a look that fails: no answer");
        r = (Result) {};
        request[3] = 's';
        ok(inspector_ask(in, &t, work_short, request, sizeof request, &r) == 0 && run_until(e, called, &r) &&
                   r.outcome == INSPECT_FAILED,
           "half an answer (malformed): no answer");
        ok(run_until(e, none_running, in), "  reaped");

        /* The ids a look takes are those the process was seen with. */
        u = t;
        for (size_t i = 0; i < 4; i++)
                u.ids.uid[i] = 0;
        r = (Result) {};
        request[3] = 'i';
        ok(inspector_ask(in, &u, work_report, request, sizeof request, &r) == 0 && run_until(e, called, &r) &&
                   r.outcome == INSPECT_FAILED,
           "seen as root, but uid 65534 now: the child refuses to look (no answer)");
        u = t;
        u.ids.uid[3] = 0;
        is_int(inspector_ask(in, &u, work_report, request, sizeof request, &r), -EPERM,
               "ids seen unsettled (a set-user-ID program under way): refused");

        /* The process must still run the binary it was seen with. */
        u = t;
        u.exe_ino++;
        r = (Result) {};
        request[3] = 'x';
        ok(inspector_ask(in, &u, work_report, request, sizeof request, &r) == 0 && run_until(e, called, &r) &&
                   r.outcome == INSPECT_CHANGED,
           "a process that runs another binary than seen: its answer discarded");
        u = t;
        u.ids.groups[0]++;
        r = (Result) {};
        request[3] = 'g';
        ok(inspector_ask(in, &u, work_report, request, sizeof request, &r) == 0 && run_until(e, called, &r) &&
                   r.outcome == INSPECT_CHANGED,
           "one whose groups are not those seen: its answer discarded");
        ok(run_until(e, none_running, in), "  reaped");

        /* The reader's user kills the look's child. */
        {
                pid_t kids[4];

                snprintf(go_path, sizeof go_path, "/tmp/test-inspector-go-%d", (int) getpid());
                (void) unlink(go_path);
                r = (Result) {};
                request[3] = 'k';
                ok(inspector_ask(in, &t, work_wait, request, sizeof request, &r) == 0 &&
                           look_children(t.pid, kids, ELEMENTSOF(kids)) == 1,
                   "a look under way (one child)");
                ok(signal_as_nobody(kids[0], SIGKILL) == 0, "  uid 65534 may kill it (it took uid 65534)");
                ok(run_until(e, called, &r) && r.outcome == INSPECT_FAILED, "  killed: no answer");
                ok(run_until(e, none_running, in), "  reaped");
        }
}

/* The process runs another binary while it is looked into. */
static void test_exec_during_look(sd_event *e, Inspector *in, InspectTarget *t) {
        char request[8] = "exec";
        Result r = {};

        (void) unlink(go_path);
        ok(inspector_ask(in, t, work_wait, request, sizeof request, &r) == 0, "a slow look starts");
        kill(t->pid, SIGUSR1);
        for (int i = 0; i < 2000; i++) {
                uint64_t dev, ino;
                uid_t uid;

                if (process_binary(t->pid, &uid, &dev, &ino) >= 0 && ino != t->exe_ino)
                        break;
                usleep(1000);
        }
        if (close(open(go_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
                abort();
        ok(run_until(e, called, &r) && r.outcome == INSPECT_CHANGED,
           "  the process ran another binary meanwhile (same pid and start): the answer is discarded");
        ok(run_until(e, none_running, in), "  reaped");
        (void) unlink(go_path);
}

/* Whatever the process's user does to the child, the deadline ends it;
 * one that cannot be ended gives its slot back and blocks its owner. */
static void test_deadline(sd_event *e, Inspector *in, InspectTarget t) {
        char request[8] = "dead";
        Result r = {}, other = {};
        InspectTarget u;
        pid_t kids[4];
        uint64_t began, took, timed_out = inspector_stats(in).timed_out;

        /* The deadline counts from the loop's time (sd_event_now()), which
         * is its last wakeup's, not now: a loaded package build saw 99 ms
         * from now. */
        if (sd_event_now(e, CLOCK_MONOTONIC, &began) < 0)
                began = now_usec(CLOCK_MONOTONIC);
        ok(inspector_ask(in, &t, work_hang, request, sizeof request, &r) == 0, "a look that never ends starts");
        ok(run_until(e, called, &r) && r.outcome == INSPECT_TIMED_OUT, "  times out");
        took = now_usec(CLOCK_MONOTONIC) - began;
        ok(took >= INSPECT_DEADLINE_USEC, "  at its deadline, not before (%llu ms)",
           (unsigned long long) (took / USEC_PER_MSEC));
        ok(run_until(e, none_running, in), "  the child is killed and reaped");
        is_u64(inspector_stats(in).timed_out, timed_out + 1, "  counted");
        ok(inspector_may_block(in, t.owner, t.mntns), "its owner's looks are refused now");
        is_int(inspector_ask(in, &t, work_report, request, sizeof request, &r), -ETIMEDOUT, "  this one");
        ok(inspector_may_block(in, t.owner, t.mntns + 1), "  and those into its other namespaces");
        ok(!inspector_may_block(in, 0, t.mntns), "  not root's");
        ok(!inspector_may_block(in, 8000, t.mntns), "  nor another owner's");

        /* Stopped by its user: killed at the deadline all the same. */
        u = t;
        u.owner = 8000;
        r = (Result) {};
        request[3] = 's';
        ok(inspector_ask(in, &u, work_hang, request, sizeof request, &r) == 0 &&
                   look_children(t.pid, kids, ELEMENTSOF(kids)) == 1,
           "another owner's look");
        ok(signal_as_nobody(kids[0], SIGSTOP) == 0, "  its process's user stops the child");
        ok(run_until(e, called, &r) && r.outcome == INSPECT_TIMED_OUT, "  it times out");
        ok(run_until(e, none_running, in), "  and, stopped, is killed and reaped (CAP_KILL)");

        /* Without CAP_KILL (the unit as it was) it lingers: its slot comes
         * back at the deadline, its owner gets no new look meanwhile. */
        cap_kill_effective(false);
        u.owner = 8001;
        r = (Result) {};
        request[3] = 'l';
        began = now_usec(CLOCK_MONOTONIC);
        ok(inspector_ask(in, &u, work_hang, request, sizeof request, &r) == 0 &&
                   look_children(t.pid, kids, ELEMENTSOF(kids)) == 1,
           "without CAP_KILL, a look whose child its user stops");
        ok(signal_as_nobody(kids[0], SIGSTOP) == 0, "  stopped");
        ok(run_until(e, called, &r) && r.outcome == INSPECT_TIMED_OUT, "  times out");
        ok(inspector_running(in) == 1 && inspector_stats(in).lingering == 1 && inspector_stats(in).running == 0,
           "  cannot be killed: it lingers, out of its slot");
        ok(!dead(kids[0]), "  (still there)");
        u.owner = 8002;
        request[3] = 'o';
        ok(inspector_ask(in, &u, work_report, request, sizeof request, &other) == 0 && run_until(e, called, &other) &&
                   other.outcome == INSPECT_ANSWERED,
           "  another owner is looked for meanwhile");
        inspector_set_hold(in, 1);     /* the timeout's own hold over: only the lingering child holds */
        usleep(1000);
        u.owner = 8001;
        u.mntns = 0;
        is_int(inspector_ask(in, &u, work_report, request, sizeof request, &other), -ETIMEDOUT,
               "  its owner gets no new look while it lingers");
        inspector_set_hold(in, INSPECT_MAY_BLOCK_USEC);
        cap_kill_effective(true);
        kill(kids[0], SIGKILL);
        ok(run_until(e, none_running, in), "  once it is gone, nothing is kept");
        (void) began;
}

/* Its parent dies (SIGKILL): the look's child dies too, even after it
 * took another uid and its user stopped it (the death signal is set again
 * after the change). */
static void parent_body(int ready, void *userdata) {
        InspectTarget *t = userdata;
        sd_event *e = NULL;
        Inspector *in = NULL;
        Result r = {};
        pid_t kids[4];
        char request[8] = "orphan";

        if (sd_event_new(&e) < 0 || inspector_new(e, &limits, on_done, NULL, NULL, &in) < 0 ||
            inspector_ask(in, t, work_hang, request, sizeof request, &r) < 0)
                _exit(1);
        /* Ours alone: the target is our parent's child. */
        if (look_children(0, kids, ELEMENTSOF(kids)) != 1 || !became_nobody(kids[0]))
                _exit(2);
        if (write(ready, &kids[0], sizeof kids[0]) != sizeof kids[0])
                _exit(3);
        for (;;)
                pause();
}

static void test_dies_with_parent(InspectTarget t) {
        int ready[2];
        pid_t parent, child = 0;

        if (pipe(ready) < 0)
                abort();
        parent = fork();
        if (parent == 0) {
                close(ready[0]);
                parent_body(ready[1], &t);
        }
        close(ready[1]);
        ok(read(ready[0], &child, sizeof child) == sizeof child && child > 0, "a parent with a look under way");
        close(ready[0]);
        ok(signal_as_nobody(child, SIGSTOP) == 0, "  the look's child took uid 65534, whose user stops it");
        kill(parent, SIGKILL);
        waitpid(parent, NULL, 0);
        for (int i = 0; i < 5000 && !dead(child); i++)
                usleep(1000);
        ok(dead(child), "  its parent killed, the stopped child dies too (its death signal outlived the change)");
        if (!dead(child))
                kill(child, SIGKILL);
}

/* Slots root's looks alone may take, each owner's share, the children
 * kept, and the rates. */
static void test_limits(sd_event *e, Inspector *in, InspectTarget t) {
        Result hang[INSPECT_MAX + 2] = {}, quick[8] = {};
        char request[8] = "lim";
        InspectTarget u = t;
        size_t i;

        u.mntns = 0;
        for (i = 0; i < 3; i++) {
                u.owner = 6000;
                request[4] = (char) i;  /* each its own look */
                ok(inspector_ask(in, &u, work_hang, request, sizeof request, &hang[i]) == 0, "owner 6000's look %zu starts",
                   i + 1);
        }
        request[4] = 'x';
        is_int(inspector_ask(in, &u, work_hang, request, sizeof request, &hang[i]), -EDQUOT,
               "  one more for the same owner: refused (its share)");
        u.owner = 1000;
        request[4] = (char) i;
        ok(inspector_ask(in, &u, work_hang, request, sizeof request, &hang[i++]) == 0, "another owner's starts");
        u.owner = 1001;
        request[4] = 'y';
        is_int(inspector_ask(in, &u, work_hang, request, sizeof request, &hang[i]), -EBUSY,
               "  a third owner's: refused, the last slot is root's");
        u.owner = 0;
        request[4] = (char) i;
        ok(inspector_ask(in, &u, work_hang, request, sizeof request, &hang[i++]) == 0, "  root's takes it");
        request[4] = 'z';
        is_int(inspector_ask(in, &u, work_hang, request, sizeof request, &hang[i]), -EBUSY,
               "  past INSPECT_MAX in all: refused, root's too");
        ok(run_until(e, none_running, in), "all time out and are reaped");
        for (size_t k = 0; k < INSPECT_MAX; k++)
                ok(hang[k].calls == 1 && hang[k].outcome == INSPECT_TIMED_OUT, "  look %zu timed out", k + 1);

        /* The rate of new looks: by owner, and of all owners. */
        u.owner = 2000;
        inspector_set_rate(in, (InspectRate) { 2, 2 }, (InspectRate) { 0, 0 });
        for (i = 0; i < 2; i++) {
                request[4] = (char) ('a' + i);
                ok(inspector_ask(in, &u, work_report, request, sizeof request, &quick[i]) == 0,
                   "rate 2/s, burst 2: owner 2000's look %zu starts", i + 1);
        }
        ok(run_until(e, none_running, in), "  both answered and reaped");
        request[4] = 'c';
        is_int(inspector_ask(in, &u, work_report, request, sizeof request, &quick[2]), -EDQUOT,
               "  a third at once: refused, though places are free");
        u.owner = 0;
        request[4] = 'd';
        ok(inspector_ask(in, &u, work_report, request, sizeof request, &quick[3]) == 0, "  root's looks are not counted");
        ok(run_until(e, none_running, in), "  reaped");
        u.owner = 2000;
        usleep(600 * 1000);     /* a token comes back each 500 ms */
        request[4] = 'e';
        ok(inspector_ask(in, &u, work_report, request, sizeof request, &quick[4]) == 0,
           "  half a second later, owner 2000 may start one again");
        ok(run_until(e, none_running, in), "  reaped");

        inspector_set_rate(in, (InspectRate) { 100, 100 }, (InspectRate) { 1, 3 });
        for (i = 0; i < 3; i++) {
                u.owner = 3000 + (uid_t) i;     /* many owners: each would get a full burst */
                request[4] = (char) ('f' + i);
                ok(inspector_ask(in, &u, work_report, request, sizeof request, &quick[i]) == 0,
                   "the rate of all, burst 3: owner %u's look starts", (unsigned) u.owner);
        }
        u.owner = 3003;
        request[4] = 'i';
        is_int(inspector_ask(in, &u, work_report, request, sizeof request, &quick[3]), -EBUSY,
               "  a fourth owner's, at once: refused, however many owners there are");
        ok(run_until(e, none_running, in), "  reaped");
        inspector_set_rate(in, (InspectRate) {}, (InspectRate) {});
}

/* Children that linger count against those kept: others are refused
 * before root's places are touched. */
static void test_lingering_kept(sd_event *e, Inspector *in, InspectTarget t) {
        const size_t others = limits.slots + limits.linger - limits.root_slots;
        Result r[INSPECT_MAX + INSPECT_LINGER_MAX] = {}, root = {};
        char request[8] = "keep";
        InspectTarget u = t;
        pid_t kids[INSPECT_MAX + INSPECT_LINGER_MAX];
        size_t n = 0;

        cap_kill_effective(false);
        u.mntns = 0;
        /* As many as others may have running, then the rest. */
        for (size_t started = 0; started < others;) {
                size_t batch = MIN(others - started, (size_t) (limits.slots - limits.root_slots));

                for (size_t i = 0; i < batch; i++, started++) {
                        u.owner = 4000 + (uid_t) started;
                        request[4] = (char) started;
                        ok(inspector_ask(in, &u, work_hang, request, sizeof request, &r[started]) == 0,
                           "owner %u's look", (unsigned) u.owner);
                }
                n = look_children(t.pid, kids, ELEMENTSOF(kids));
                for (size_t i = 0; i < n; i++)
                        (void) signal_as_nobody(kids[i], SIGSTOP);
                ok(run_until(e, called, &r[started - 1]), "  stopped by their user, and timed out");
        }
        is_int((int) inspector_stats(in).lingering, (int) others, "  all lingering (no CAP_KILL)");
        u.owner = 4999;
        request[4] = 'n';
        is_int(inspector_ask(in, &u, work_report, request, sizeof request, &r[0]), -EBUSY,
               "  another owner's: refused, the children kept are full but for root's");
        u.owner = 0;
        request[4] = 'r';
        ok(inspector_ask(in, &u, work_report, request, sizeof request, &root) == 0 && run_until(e, called, &root) &&
                   root.outcome == INSPECT_ANSWERED,
           "  root's look still has its place");
        cap_kill_effective(true);
        n = look_children(t.pid, kids, ELEMENTSOF(kids));
        for (size_t i = 0; i < n; i++)
                kill(kids[i], SIGKILL);
        ok(run_until(e, none_running, in), "  all gone once killed");
}

int main(void) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        Inspector *in = NULL;
        InspectTarget t = { .mntns = 4242 };
        Result r = {};
        char request[8] = "ask";
        pid_t target;

        if (geteuid() != 0) {
                tap_skip("needs root: the inspector takes another process's credentials");
                return tap_done();
        }
        if (sd_event_new(&e) < 0 || inspector_new(e, &limits, on_done, NULL, NULL, &in) < 0)
                abort();
        target = target_new(&t);
        snprintf(go_path, sizeof go_path, "/tmp/test-inspector-go-%d", (int) getpid());

        test_answers(e, in, t);
        test_no_answer(e, in, t);
        test_dies_with_parent(t);

        /* ---- patience: the asker is told, the look goes on ---- */
        {
                Result p = {}, joined = {};

                (void) unlink(go_path);
                inspector_set_deadline(in, 10 * USEC_PER_SEC, 50 * USEC_PER_MSEC);
                request[4] = 'w';
                ok(inspector_ask(in, &t, work_wait, request, sizeof request, &p) == 0, "a slow look starts");
                ok(run_until(e, called, &p) && p.outcome == INSPECT_PENDING, "  past the patience: pending");
                is_int(inspector_ask(in, &t, work_wait, request, sizeof request, &joined), -EINPROGRESS,
                       "  asked again meanwhile: not joined (no waiting past the patience)");
                if (close(open(go_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
                        abort();
                ok(run_until(e, called_twice, &p) && p.outcome == INSPECT_ANSWERED && p.calls == 2,
                   "  then its answer, to the same asker");
                ok(run_until(e, none_running, in), "  reaped");
                (void) unlink(go_path);
                request[4] = 0;
        }
        test_exec_during_look(e, in, &t);
        inspector_set_deadline(in, INSPECT_DEADLINE_USEC, 0);
        target_free(target);
        target = target_new(&t);        /* a process that runs its binary again */

        test_limits(e, in, t);
        test_lingering_kept(e, in, t);
        test_deadline(e, in, t);

        /* ---- freed with a look under way ---- */
        r = (Result) {};
        t.owner = 5000;
        t.mntns = 0;
        ok(inspector_ask(in, &t, work_hang, request, sizeof request, &r) == 0, "a look under way");
        inspector_free(in);
        ok(r.calls == 0, "  freed with the inspector: not answered, the child killed");

        target_free(target);
        return tap_done();
}
