/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lookups inside another user's process, each in a child with that
 * process's credentials and a deadline. See inspector.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inspector.h"
#include "log.h"
#include "macro.h"
#include "missing.h"
#include "owner.h"
#include "parsers.h"
#include "readers.h"
#include "resolve.h"
#include "rootfs.h"

/* Timeouts remembered: owners (root's by mount namespace) left alone. */
#define MAY_BLOCK_SLOTS 64
/* Children kept, running and lingering. */
#define CHILDREN_MAX (INSPECT_MAX + INSPECT_LINGER_MAX)

typedef struct Inspection {
        Inspector *in;
        InspectTarget target;
        unsigned char request[INSPECT_REQUEST_MAX];
        size_t request_size;
        pid_t child;
        int pidfd, sock;
        sd_event_source *answer_source, *exit_source, *deadline, *patience;
        void *waiters[INSPECT_WAITERS_MAX];
        size_t n_waiters;
        bool finished;          /* answered or given up: out of its slot, only its exit is awaited */
        bool overdue;           /* not gone by its deadline: its owner gets no new look meanwhile */
} Inspection;

typedef struct MayBlock {
        uid_t owner;
        uint64_t mntns;         /* root's: this namespace only; 0: all of the owner's */
        uint64_t until;
} MayBlock;

/* Looks one owner (or all) may start: a bucket of tokens, refilled over time. */
#define RATE_OWNERS 64
typedef struct LookRate {
        uid_t owner;
        double tokens;
        uint64_t at;            /* CLOCK_MONOTONIC µs of the last refill; 0: free */
} LookRate;

struct Inspector {
        sd_event *event;
        InspectLimits limits;
        uint64_t deadline, patience;
        uint64_t hold;                          /* owners refused after a timeout for this long */
        InspectDone done;
        void (*free_token)(void *token);
        void (*freed)(Inspector *in, void *userdata);
        void *userdata;
        Inspection *children[CHILDREN_MAX];     /* running (in a slot) or lingering */
        MayBlock may_block[MAY_BLOCK_SLOTS];
        size_t next_may_block;
        InspectStats stats;
        bool kill_refused;                      /* said once */
        InspectRate rate, rate_all;
        LookRate rates[RATE_OWNERS];
        LookRate rate_of_all;
};

/* ---- the child ---- */

static int read_at(int dirfd, const char *name, char **ret) {
        _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);

        if (fd < 0)
                return -errno;
        return fd_read_all(fd, 64 * 1024, ret, NULL);
}

/* Becomes the process as it was seen: its uid and gid (as all four), its
 * groups, no capabilities, not dumpable (it could ptrace us otherwise: we
 * are a copy of the daemon), with a death signal. Changing the effective
 * ids clears the death signal; the user may signal us once our real or
 * saved uid is theirs. So the effective uid goes first, the signal is set
 * again, and only then the rest: no moment where that user may stop us
 * before our death signal is back (stopped then, we would outlive the
 * daemon). */
static int become(const ProcIds *ids, pid_t parent) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct none[2] = {};
        uid_t uid = ids->uid[0];
        gid_t gid = ids->gid[0];

        if (prctl(PR_SET_DUMPABLE, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -errno;
        if (setgroups(ids->n_groups, ids->groups) < 0 || setresgid(gid, gid, gid) < 0 ||
            setresuid(0, uid, 0) < 0)
                return -errno;
        /* (The daemon may signal us: CAP_KILL.) */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                return -errno;
        if (getppid() != parent)
                return -ESRCH;
        if (setresuid(uid, uid, uid) < 0)
                return -errno;
        /* uid 0 keeps its capabilities through setresuid(): dropped here. */
        if (syscall(SYS_capset, &header, none) < 0)
                return -errno;
        if (getuid() != uid || geteuid() != uid || getgid() != gid || getegid() != gid)
                return -EPERM;
        return 0;
}

/* Opens what the work may read of the process, as root (a process of
 * another user namespace, or hidden by hidepid=, is not ours to open as
 * its uid), checks it is the process asked for and still has the ids it
 * was seen with (a set-user-ID program run since is not taken for it),
 * and becomes it. */
static int take_process(const InspectTarget *t, pid_t parent, InspectedProcess *p) {
        _cleanup_close_ int dirfd = -1, nsfd = -1;
        _cleanup_free_ char *stat = NULL, *status = NULL;
        uint64_t start;
        ProcIds now;
        char path[64];
        int r;

        if (!proc_ids_settled(&t->ids))
                return -EPERM;
        snprintf(path, sizeof path, "/proc/" PID_FMT, t->pid);
        /* The directory stays that process's, even if the pid is reused. */
        dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0)
                return -errno;
        r = read_at(dirfd, "stat", &stat);
        if (r < 0)
                return r;
        if (proc_stat_starttime(stat, &start) < 0 || start != t->start)
                return -ESRCH;
        r = read_at(dirfd, "status", &status);
        if (r < 0)
                return r;
        if (proc_status_ids(status, &now) < 0 || memcmp(now.uid, t->ids.uid, sizeof now.uid) != 0 ||
            memcmp(now.gid, t->ids.gid, sizeof now.gid) != 0)
                return -EPERM;
        p->rootfd = openat(dirfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
        p->cmdlinefd = openat(dirfd, "cmdline", O_RDONLY | O_CLOEXEC);
        p->environfd = openat(dirfd, "environ", O_RDONLY | O_CLOEXEC);
        p->mountinfofd = openat(dirfd, "mountinfo", O_RDONLY | O_CLOEXEC);
        /* Its root's file system, asked of the kernel about the mount in
         * the process's namespace (so as root: no capability is needed to
         * look at it from inside). Nothing is looked up, and no mount table
         * of any size is read. */
        nsfd = openat(dirfd, "ns/mnt", O_RDONLY | O_CLOEXEC);
        if (p->rootfd >= 0 && nsfd >= 0 && mount_magic_of(p->rootfd, mntns_id(nsfd), &p->root_magic) < 0)
                p->root_magic = 0;
        return become(&t->ids, parent);
}

const char *inspected_mountinfo(const InspectedProcess *p) {
        /* The child's, until it exits: one look, one process. */
        static char *mountinfo;
        static bool tried;

        if (!tried && p->mountinfofd >= 0 && fd_read_all(p->mountinfofd, INSPECT_MOUNTINFO_MAX, &mountinfo, NULL) < 0)
                mountinfo = NULL;
        tried = true;
        return mountinfo;
}

bool inspected_root_may_block(const InspectedProcess *p) {
        const char *mountinfo;

        if (p->rootfd < 0)
                return true;
        if (p->root_magic != 0)
                return p->root_magic == FUSE_SUPER_MAGIC;
        mountinfo = inspected_mountinfo(p);
        return !mountinfo || resolve_root_may_block(mountinfo, p->rootfd);
}

static int send_answer(int sock, const void *answer, size_t size, const int *fds, size_t n_fds) {
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int) * INSPECT_FDS_MAX)];
        } control = {};
        struct iovec iov = { .iov_base = (void *) answer, .iov_len = size };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

        if (n_fds > 0) {
                struct cmsghdr *c;

                mh.msg_control = control.buf;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
                memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
        }
        return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t) size ? 0 : -EIO;
}

_Noreturn static void child_main(const InspectTarget *t, InspectWork work, const void *request, int sock,
                                  pid_t parent) {
        static unsigned char answer[INSPECT_ANSWER_MAX];
        static int fds[INSPECT_FDS_MAX];
        InspectedProcess p = { .pid = t->pid, .rootfd = -1, .cmdlinefd = -1, .environfd = -1, .mountinfofd = -1 };
        struct sched_param normal = {};
        size_t n_fds = 0;
        sigset_t none;

        /* Nothing of the daemon's but the answer's socket. */
        if (dup2(sock, 3) < 0)
                _exit(10);
        (void) close_range(4, ~0U, 0);
        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
                _exit(11);
        /* Not the daemon's real-time priority (systemd's
         * CPUSchedulingResetOnFork= does the same). */
        (void) sched_setscheduler(0, SCHED_OTHER, &normal);
        if (take_process(t, parent, &p) < 0)
                _exit(12);
        if (work(&p, request, answer, sizeof answer, fds, &n_fds) < 0 || n_fds > INSPECT_FDS_MAX)
                _exit(13);
        if (send_answer(3, answer, sizeof answer, fds, n_fds) < 0)
                _exit(14);
        _exit(0);
}

/* ---- the daemon's side ---- */

static void inspection_free(Inspection *q) {
        if (!q)
                return;
        sd_event_source_disable_unref(q->answer_source);
        sd_event_source_disable_unref(q->exit_source);
        sd_event_source_disable_unref(q->deadline);
        sd_event_source_disable_unref(q->patience);
        safe_close(q->sock);
        safe_close(q->pidfd);
        for (size_t i = 0; i < q->n_waiters; i++)
                if (q->in->free_token)
                        q->in->free_token(q->waiters[i]);
        free(q);
}

static void child_forget(Inspection *q) {
        for (size_t i = 0; i < CHILDREN_MAX; i++)
                if (q->in->children[i] == q)
                        q->in->children[i] = NULL;
        inspection_free(q);
}

static void mark_may_block(Inspector *in, const InspectTarget *t) {
        /* Root's processes are root's: only that namespace is suspect. Any
         * other user who made one look wait made it on purpose, or will
         * again: all of theirs. */
        if (t->owner == 0 && t->mntns == 0)
                return;
        in->may_block[in->next_may_block] = (MayBlock) {
                .owner = t->owner,
                .mntns = t->owner == 0 ? t->mntns : 0,
                .until = now_usec(CLOCK_MONOTONIC) + in->hold,
        };
        in->next_may_block = (in->next_may_block + 1) % MAY_BLOCK_SLOTS;
}

static void kill_child(Inspection *q) {
        if (pidfd_send_signal(q->pidfd, SIGKILL, NULL, 0) >= 0 || errno == ESRCH || q->in->kill_refused)
                return;
        /* Without CAP_KILL a child that took another uid cannot be killed,
         * and that user may stop it: said once. */
        q->in->kill_refused = true;
        log_warning_errno(errno, "Cannot kill a look's child (pid " PID_FMT "), it lingers: %m "
                          "(the unit's CapabilityBoundingSet= needs CAP_KILL)", q->child);
}

/* Tells each asker, once, with the child's slot given back first; the
 * child is killed (it may have answered and be on its way out: harmless)
 * and stays kept until it is gone. */
static void finish(Inspection *q, InspectOutcome outcome, const void *answer, int *fds, size_t n_fds) {
        Inspector *in = q->in;
        size_t n = q->n_waiters;
        void *waiters[INSPECT_WAITERS_MAX];

        if (q->finished)
                return;
        q->finished = true;
        kill_child(q);
        q->answer_source = sd_event_source_disable_unref(q->answer_source);
        q->patience = sd_event_source_disable_unref(q->patience);
        q->sock = safe_close(q->sock);
        switch (outcome) {
        case INSPECT_ANSWERED:
                in->stats.answered++;
                break;
        case INSPECT_TIMED_OUT:
                in->stats.timed_out++;
                mark_may_block(in, &q->target);
                break;
        case INSPECT_CHANGED:
                in->stats.changed++;
                break;
        default:
                in->stats.failed++;
        }
        memcpy(waiters, q->waiters, n * sizeof *waiters);
        q->n_waiters = 0;
        for (size_t i = 0; i < n; i++)
                in->done(in, outcome, answer, fds, n_fds, waiters[i], in->userdata);
        for (size_t i = 0; i < n_fds; i++)
                safe_close(fds[i]);
}

/* After the look, on the loop: whether the process is still the one seen,
 * running the same binary with the same ids. A set-user-ID program run
 * between the read and the look, or during it, voids the answer. */
static bool target_unchanged(const InspectTarget *t) {
        uint64_t start, dev, ino;
        ProcIds now;
        uid_t uid;

        if (process_start_time(t->pid, &start) < 0 || start != t->start)
                return false;
        if (process_ids(t->pid, &now) < 0 || !proc_ids_equal(&now, &t->ids))
                return false;
        if (t->has_exe_id &&
            (process_binary(t->pid, &uid, &dev, &ino) < 0 || dev != t->exe_dev || ino != t->exe_ino))
                return false;
        return true;
}

/* The answer, whole, or none: EOF (the child failed) or a short write;
 * with the fds it carried. */
static void take_answer(Inspection *q) {
        static unsigned char answer[INSPECT_ANSWER_MAX];
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int) * INSPECT_FDS_MAX)];
        } control;
        struct iovec iov = { .iov_base = answer, .iov_len = sizeof answer };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                             .msg_controllen = sizeof control.buf };
        int fds[INSPECT_FDS_MAX];
        size_t n_fds = 0;
        ssize_t n = recvmsg(q->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return;
        for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

                        for (size_t i = 0; i < k && n_fds < INSPECT_FDS_MAX; i++)
                                memcpy(&fds[n_fds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                }
        if (n != (ssize_t) sizeof answer || (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) ||
            !target_unchanged(&q->target)) {
                for (size_t i = 0; i < n_fds; i++)
                        safe_close(fds[i]);
                finish(q, n == (ssize_t) sizeof answer ? INSPECT_CHANGED : INSPECT_FAILED, NULL, NULL, 0);
                return;
        }
        finish(q, INSPECT_ANSWERED, answer, fds, n_fds);
}

static int on_answer(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        take_answer(userdata);
        return 0;
}

/* Past the askers' patience: each told once; the look goes on. */
static int on_patience(sd_event_source *s, uint64_t usec, void *userdata) {
        Inspection *q = userdata;
        Inspector *in = q->in;

        q->patience = sd_event_source_disable_unref(q->patience);
        for (size_t i = 0; i < q->n_waiters && !q->finished; i++)
                in->done(in, INSPECT_PENDING, NULL, NULL, 0, q->waiters[i], in->userdata);
        return 0;
}

/* Its deadline: a look still under way is killed and given up; a child
 * not gone by now (stuck in the kernel, in a FUSE request that SIGKILL
 * cannot end) is overdue, and its owner gets no new look while it lingers. */
static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        Inspection *q = userdata;

        q->deadline = sd_event_source_disable_unref(q->deadline);
        q->overdue = true;
        if (!q->finished) {
                log_debug("Looking into process " PID_FMT " took over %llu ms: killed.", q->target.pid,
                          (unsigned long long) (q->in->deadline / USEC_PER_MSEC));
                finish(q, INSPECT_TIMED_OUT, NULL, NULL, 0);
        } else
                kill_child(q);
        return 0;
}

/* The child is gone: its answer, if it wrote one first, then its place. */
static int on_child_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Inspection *q = userdata;
        Inspector *in;
        siginfo_t si = {};

        int r = waitid(P_PIDFD, (id_t) q->pidfd, &si, WEXITED | WNOHANG);

        if (r < 0 && errno != ECHILD)
                return 0;
        if (r >= 0 && si.si_pid == 0)
                return 0;       /* not yet */
        if (!q->finished)
                take_answer(q);
        if (!q->finished)
                finish(q, INSPECT_FAILED, NULL, NULL, 0);
        in = q->in;
        child_forget(q);
        if (in->freed)
                in->freed(in, in->userdata);
        return 0;
}

void inspector_set_freed(Inspector *in, void (*freed)(Inspector *in, void *userdata)) {
        in->freed = freed;
}

void inspector_set_deadline(Inspector *in, uint64_t usec, uint64_t patience) {
        in->deadline = usec;
        in->patience = patience;
}

void inspector_set_hold(Inspector *in, uint64_t usec) {
        in->hold = usec;
        /* Holds already made end as this one would have. */
        for (size_t i = 0; i < MAY_BLOCK_SLOTS; i++)
                in->may_block[i].until = MIN(in->may_block[i].until, now_usec(CLOCK_MONOTONIC) + usec);
}

bool inspector_may_block(const Inspector *in, uid_t owner, uint64_t mntns) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        for (size_t i = 0; i < MAY_BLOCK_SLOTS; i++) {
                const MayBlock *b = &in->may_block[i];

                if (b->until > now && b->owner == owner && (b->mntns == 0 || b->mntns == mntns))
                        return true;
        }
        for (size_t i = 0; owner != 0 && i < CHILDREN_MAX; i++)
                if (in->children[i] && in->children[i]->overdue && in->children[i]->target.owner == owner)
                        return true;
        return false;
}

size_t inspector_running(const Inspector *in) {
        size_t n = 0;

        for (size_t i = 0; in && i < CHILDREN_MAX; i++)
                n += in->children[i] != NULL;
        return n;
}

InspectStats inspector_stats(const Inspector *in) {
        InspectStats s = {};

        if (!in)
                return s;
        s = in->stats;
        for (size_t i = 0; i < CHILDREN_MAX; i++)
                if (in->children[i]) {
                        if (in->children[i]->finished)
                                s.lingering++;
                        else
                                s.running++;
                }
        return s;
}

static Inspection *find_same(Inspector *in, const InspectTarget *t, const void *request, size_t size) {
        for (size_t i = 0; i < CHILDREN_MAX; i++) {
                Inspection *q = in->children[i];

                if (q && !q->finished && q->target.pid == t->pid && q->target.start == t->start &&
                    proc_ids_equal(&q->target.ids, &t->ids) && q->request_size == size &&
                    memcmp(q->request, request, size) == 0)
                        return q;
        }
        return NULL;
}

static int start(Inspector *in, Inspection *q, InspectWork work) {
        int pair[2];
        pid_t parent = getpid();
        int r;

        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
                return -errno;
        q->child = fork();
        if (q->child < 0) {
                r = -errno;
                safe_close(pair[0]);
                safe_close(pair[1]);
                return r;
        }
        if (q->child == 0) {
                safe_close(pair[0]);
                child_main(&q->target, work, q->request, pair[1], parent);
        }
        safe_close(pair[1]);
        q->sock = pair[0];
        /* Ours until we reap it: the pid cannot be reused before. */
        q->pidfd = pidfd_open(q->child, 0);
        if (q->pidfd < 0) {
                r = -errno;
                (void) kill(q->child, SIGKILL);
                (void) waitpid(q->child, NULL, 0);
                return r;
        }
        r = sd_event_add_io(in->event, &q->exit_source, q->pidfd, EPOLLIN, on_child_exit, q);
        if (r < 0) {
                (void) pidfd_send_signal(q->pidfd, SIGKILL, NULL, 0);
                (void) waitid(P_PIDFD, (id_t) q->pidfd, &(siginfo_t) {}, WEXITED);
                return r;
        }
        r = sd_event_add_io(in->event, &q->answer_source, q->sock, EPOLLIN, on_answer, q);
        if (r >= 0)
                r = sd_event_add_time_relative(in->event, &q->deadline, CLOCK_MONOTONIC, in->deadline,
                                               USEC_PER_MSEC, on_deadline, q);
        if (r >= 0 && in->patience > 0 && in->patience < in->deadline)
                r = sd_event_add_time_relative(in->event, &q->patience, CLOCK_MONOTONIC, in->patience,
                                               USEC_PER_MSEC, on_patience, q);
        if (r < 0) {
                /* Its exit source reaps it. */
                (void) pidfd_send_signal(q->pidfd, SIGKILL, NULL, 0);
                q->finished = true;
                return 0;
        }
        (void) sd_event_source_set_description(q->exit_source, "inspect-exit");
        (void) sd_event_source_set_description(q->answer_source, "inspect-answer");
        (void) sd_event_source_set_description(q->deadline, "inspect-deadline");
        return 0;
}

/* Refills bucket r at rate, and takes a token: false if none is left. */
static bool bucket_take(LookRate *r, InspectRate rate, uint64_t now) {
        r->tokens = MIN((double) rate.burst, r->tokens + (double) (now - r->at) * rate.per_second / USEC_PER_SEC);
        r->at = now;
        if (r->tokens < 1)
                return false;
        r->tokens -= 1;
        return true;
}

/* The owner's bucket; one not seen lately takes the place of the one idle
 * the longest (full: many owners meet the bucket of all first). */
static LookRate *owner_bucket(Inspector *in, uid_t owner, uint64_t now) {
        LookRate *oldest = &in->rates[0];

        for (size_t i = 0; i < RATE_OWNERS; i++) {
                if (in->rates[i].at != 0 && in->rates[i].owner == owner)
                        return &in->rates[i];
                if (in->rates[i].at < oldest->at)
                        oldest = &in->rates[i];
        }
        *oldest = (LookRate) { .owner = owner, .tokens = in->rate.burst, .at = now };
        return oldest;
}

/* Root's looks are not counted (nobody else can make a process of root's).
 * A look refused by either bucket takes no token of the other. */
static int rate_take(Inspector *in, uid_t owner) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        LookRate *mine, before_all;

        if (owner == 0)
                return 0;
        before_all = in->rate_of_all;
        if (in->rate_all.per_second > 0 && !bucket_take(&in->rate_of_all, in->rate_all, now))
                return -EBUSY;
        if (in->rate.per_second == 0)
                return 0;
        mine = owner_bucket(in, owner, now);
        if (!bucket_take(mine, in->rate, now)) {
                in->rate_of_all = before_all;
                return -EDQUOT;
        }
        return 0;
}

void inspector_set_rate(Inspector *in, InspectRate owner, InspectRate all) {
        if (!in)
                return;
        in->rate = (InspectRate) { .per_second = owner.per_second, .burst = MAX(owner.burst, 1u) };
        in->rate_all = (InspectRate) { .per_second = all.per_second, .burst = MAX(all.burst, 1u) };
        memset(in->rates, 0, sizeof in->rates);
        in->rate_of_all = (LookRate) { .tokens = in->rate_all.burst, .at = now_usec(CLOCK_MONOTONIC) };
}

/* Whether a new look of owner's has a place: a slot (root's own ones for
 * root), and a child kept, of those others may use. */
static int place_for(const Inspector *in, uid_t owner, size_t *ret_free) {
        const InspectLimits *l = &in->limits;
        size_t running = 0, kept = 0, others_running = 0, others_kept = 0, of_owner = 0, free_at = CHILDREN_MAX;

        for (size_t i = 0; i < CHILDREN_MAX; i++) {
                const Inspection *q = in->children[i];

                if (!q) {
                        free_at = MIN(free_at, i);
                        continue;
                }
                kept++;
                running += !q->finished;
                if (q->target.owner != 0) {
                        others_kept++;
                        others_running += !q->finished;
                }
                of_owner += !q->finished && q->target.owner == owner;
        }
        if (free_at == CHILDREN_MAX || running >= l->slots || kept >= l->slots + l->linger)
                return -EBUSY;
        if (owner != 0) {
                if (others_running >= l->slots - l->root_slots || others_kept >= l->slots + l->linger - l->root_slots)
                        return -EBUSY;
                if (of_owner >= l->per_owner)
                        return -EDQUOT;
        }
        *ret_free = free_at;
        return 0;
}

int inspector_ask(Inspector *in, const InspectTarget *t, InspectWork work, const void *request, size_t request_size,
                  void *token) {
        Inspection *q;
        size_t free_at;
        int r;

        if (!in || !t || t->pid <= 0 || request_size > INSPECT_REQUEST_MAX)
                return -EINVAL;
        if (!proc_ids_settled(&t->ids))
                return -EPERM;
        if (inspector_may_block(in, t->owner, t->mntns)) {
                in->stats.refused++;
                return -ETIMEDOUT;
        }
        q = find_same(in, t, request, request_size);
        if (q) {
                if (in->patience > 0 && !q->patience)
                        return -EINPROGRESS;    /* past the patience already: do not wait */
                if (q->n_waiters == INSPECT_WAITERS_MAX)
                        return -ENOBUFS;
                q->waiters[q->n_waiters++] = token;
                return 0;
        }
        r = place_for(in, t->owner, &free_at);
        if (r >= 0)
                r = rate_take(in, t->owner);
        if (r < 0) {
                in->stats.refused++;
                return r;
        }

        q = calloc(1, sizeof(Inspection));
        if (!q)
                return -ENOMEM;
        *q = (Inspection) { .in = in, .target = *t, .request_size = request_size, .pidfd = -1, .sock = -1 };
        memcpy(q->request, request, request_size);
        r = start(in, q, work);
        if (r < 0) {
                inspection_free(q);
                return log_debug_errno(r, "Cannot start looking into process " PID_FMT ": %m", t->pid);
        }
        in->stats.started++;
        in->children[free_at] = q;
        if (q->finished)
                /* Started, but not watched: its exit source reaps it; the
                 * asker counts the read now. */
                return -ENOMEM;
        q->waiters[q->n_waiters++] = token;
        return 0;
}

int inspector_new(sd_event *event, const InspectLimits *limits, InspectDone done, void (*free_token)(void *token),
                  void *userdata, Inspector **ret) {
        Inspector *in;

        if (!limits || limits->slots == 0 || limits->slots > INSPECT_MAX || limits->root_slots >= limits->slots ||
            limits->per_owner == 0 || limits->linger > INSPECT_LINGER_MAX)
                return -EINVAL;
        in = calloc(1, sizeof(Inspector));
        if (!in)
                return -ENOMEM;
        in->limits = *limits;
        in->deadline = INSPECT_DEADLINE_USEC;
        in->hold = INSPECT_MAY_BLOCK_USEC;
        in->event = sd_event_ref(event);
        in->done = done;
        in->free_token = free_token;
        in->userdata = userdata;
        *ret = in;
        return 0;
}

Inspector *inspector_free(Inspector *in) {
        if (!in)
                return NULL;
        for (size_t i = 0; i < CHILDREN_MAX; i++) {
                Inspection *q = in->children[i];

                if (!q)
                        continue;
                /* Killed and reaped here: a child stuck in the kernel is
                 * left to init rather than waited for (its death signal
                 * ends it once it wakes, if we are gone). */
                (void) pidfd_send_signal(q->pidfd, SIGKILL, NULL, 0);
                (void) waitid(P_PIDFD, (id_t) q->pidfd, &(siginfo_t) {}, WEXITED | WNOHANG);
                inspection_free(q);
        }
        sd_event_unref(in->event);
        free(in);
        return NULL;
}
