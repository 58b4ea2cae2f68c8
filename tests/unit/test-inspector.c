/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The inspector: a look into another process runs in a child with that
 * process's credentials, answers through the loop, is killed at its
 * deadline, and is limited per uid and in all. The process looked into is
 * a child of ours that became uid 65534 with groups of its own. */
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
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inspector.h"
#include "macro.h"
#include "parsers.h"
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

/* A process of uid and gid 65534 with supplementary groups 65534 and 100,
 * waiting to be looked into; its start time in *ret_start. */
static void target_body(int ready, void *userdata) {
        gid_t groups[] = { 65534, 100 };

        become_nobody(groups, ELEMENTSOF(groups));
        (void) write(ready, "x", 1);
        for (;;)
                pause();
}

static pid_t target_new(uint64_t *ret_start) {
        _cleanup_free_ char *stat = NULL;
        pid_t pid = fork_ready(target_body, NULL);
        char path[64];

        snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
        if (root_read_file("/", path, 4096, &stat) < 0 || proc_stat_starttime(stat, ret_start) < 0)
                abort();
        return pid;
}

static void target_free(pid_t pid) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

int main(void) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        Inspector *in = NULL;
        InspectTarget t = { .uid = 65534, .mntns = 4242 };
        Result r = {}, r2 = {};
        char request[8] = "ask";
        pid_t target;

        if (geteuid() != 0) {
                tap_skip("needs root: the inspector takes another process's credentials");
                return tap_done();
        }
        if (sd_event_new(&e) < 0 || inspector_new(e, INSPECT_MAX, 3, on_done, NULL, NULL, &in) < 0)
                abort();
        target = target_new(&t.start);
        t.pid = target;

        /* ---- an answer, as the process ---- */
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

        /* ---- fds handed back ---- */
        r = (Result) {};
        request[4] = 'f';
        ok(inspector_ask(in, &t, work_fds, request, sizeof request, &r) == 0 && run_until(e, called, &r) &&
                   r.outcome == INSPECT_ANSWERED && r.n_fds == 2 && r.fds_as_sent,
           "an answer carries the fds the look opened (a directory, a device)");
        ok(run_until(e, none_running, in), "  reaped");
        request[4] = 0;

        /* ---- another process than asked for ---- */
        r = (Result) {};
        t.start++;
        ok(inspector_ask(in, &t, work_report, request, sizeof request, &r) == 0 && run_until(e, called, &r) &&
                   r.outcome == INSPECT_FAILED,
           "a pid whose start time is not the one asked about: no answer");
        t.start--;
        r = (Result) {};
        ok(inspector_ask(in, &t, work_fail, request, sizeof request, &r) == 0 && run_until(e, called, &r) &&
                   r.outcome == INSPECT_FAILED,
           "a look that fails: no answer");
        ok(run_until(e, none_running, in), "  reaped");

        /* ---- the deadline ---- */
        {
                uint64_t began = now_usec(CLOCK_MONOTONIC), took;

                r = (Result) {};
                ok(inspector_ask(in, &t, work_hang, request, sizeof request, &r) == 0, "a look that never ends starts");
                ok(run_until(e, called, &r) && r.outcome == INSPECT_TIMED_OUT, "  times out");
                took = now_usec(CLOCK_MONOTONIC) - began;
                ok(took >= INSPECT_DEADLINE_USEC, "  at its deadline, not before (%llu ms)",
                   (unsigned long long) (took / USEC_PER_MSEC));
                ok(run_until(e, none_running, in), "  the child is killed and reaped");
                is_u64(inspector_timeouts(in), 1, "  counted");
                ok(inspector_may_block(in, t.mntns, t.uid), "its mount namespace may block now");
                is_int(inspector_ask(in, &t, work_report, request, sizeof request, &r), -EWOULDBLOCK,
                       "  and is not looked into again");
                ok(!inspector_may_block(in, t.mntns + 1, t.uid), "  another namespace may be");
                ok(!inspector_may_block(in, t.mntns, 0), "  and another uid's looks there are not held back");
        }

        /* ---- patience: the asker is told, the look goes on ---- */
        {
                Result p = {}, joined = {};

                snprintf(go_path, sizeof go_path, "/tmp/test-inspector-go-%d", (int) getpid());
                (void) unlink(go_path);
                inspector_set_deadline(in, 10 * USEC_PER_SEC, 50 * USEC_PER_MSEC);
                t.mntns++;      /* not the one that timed out */
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
                inspector_set_deadline(in, INSPECT_DEADLINE_USEC, 0);
                request[4] = 0;
        }

        /* ---- limits ---- */
        {
                Result hang[INSPECT_MAX + 1] = {};
                InspectTarget u = t;
                size_t i;

                u.mntns = 0;    /* unknown: never marked */
                for (i = 0; i < 3; i++) {
                        request[4] = (char) i;  /* each its own look */
                        ok(inspector_ask(in, &u, work_hang, request, sizeof request, &hang[i]) == 0,
                           "uid 65534's look %zu starts", i + 1);
                }
                request[4] = 'x';
                is_int(inspector_ask(in, &u, work_hang, request, sizeof request, &hang[i]), -EBUSY,
                       "  one more for the same uid waits for none: refused");
                u.uid = 0;
                for (; i < INSPECT_MAX; i++) {
                        request[4] = (char) i;
                        ok(inspector_ask(in, &u, work_hang, request, sizeof request, &hang[i]) == 0,
                           "another uid's look starts");
                }
                u.uid = 1;
                request[4] = 'y';
                is_int(inspector_ask(in, &u, work_hang, request, sizeof request, &hang[i]), -EBUSY,
                       "  past INSPECT_MAX in all: refused");
                ok(run_until(e, none_running, in), "all time out and are reaped");
                for (i = 0; i < INSPECT_MAX; i++)
                        ok(hang[i].calls == 1 && hang[i].outcome == INSPECT_TIMED_OUT, "  look %zu timed out", i + 1);
        }

        /* ---- the rate of new looks, per uid ---- */
        {
                Result quick[6] = {};
                InspectTarget u = t;
                size_t i;

                u.mntns = 0;
                inspector_set_rate(in, 2, 2);
                for (i = 0; i < 2; i++) {
                        request[4] = (char) ('a' + i);
                        ok(inspector_ask(in, &u, work_report, request, sizeof request, &quick[i]) == 0,
                           "rate 2/s, burst 2: uid 65534's look %zu starts", i + 1);
                }
                ok(run_until(e, none_running, in), "  both answered and reaped");
                request[4] = 'c';
                is_int(inspector_ask(in, &u, work_report, request, sizeof request, &quick[2]), -EBUSY,
                       "  a third at once: refused, though places are free");
                is_u64(inspector_rate_refused(in), 1, "  and counted");
                u.uid = 0;
                request[4] = 'd';
                ok(inspector_ask(in, &u, work_report, request, sizeof request, &quick[3]) == 0,
                   "  root's looks are not counted");
                ok(run_until(e, none_running, in), "  reaped");
                u.uid = 65534;
                usleep(600 * 1000);     /* a token comes back each 500 ms */
                request[4] = 'e';
                ok(inspector_ask(in, &u, work_report, request, sizeof request, &quick[4]) == 0,
                   "  half a second later, uid 65534 may start one again");
                ok(run_until(e, none_running, in), "  reaped");
                inspector_set_rate(in, 0, 0);
                request[4] = 0;
        }

        /* ---- freed with a look under way ---- */
        r = (Result) {};
        t.mntns = 0;
        ok(inspector_ask(in, &t, work_hang, request, sizeof request, &r) == 0, "a look under way");
        inspector_free(in);
        ok(r.calls == 0, "  freed with the inspector: not answered, the child killed");

        target_free(target);
        return tap_done();
}
