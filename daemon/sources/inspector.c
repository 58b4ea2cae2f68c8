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
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inspector.h"
#include "log.h"
#include "macro.h"
#include "parsers.h"
#include "resolve.h"
#include "rootfs.h"

#define GROUPS_MAX 1024
#define MAY_BLOCK_SLOTS 16

typedef struct Inspection {
        Inspector *owner;
        InspectTarget target;
        unsigned char request[INSPECT_REQUEST_MAX];
        size_t request_size;
        pid_t child;
        int pidfd, sock;
        sd_event_source *answer_source, *exit_source, *deadline, *patience;
        void *waiters[INSPECT_WAITERS_MAX];
        size_t n_waiters;
        bool finished;          /* answered or given up: only its exit is awaited */
} Inspection;

typedef struct MayBlock {
        uint64_t mntns;
        uid_t uid;
        uint64_t until;
} MayBlock;

/* Looks one uid may start: a bucket of tokens, refilled over time. */
#define RATE_UIDS 64
typedef struct LookRate {
        uid_t uid;
        double tokens;
        uint64_t at;            /* CLOCK_MONOTONIC µs of the last refill; 0: free */
} LookRate;

struct Inspector {
        sd_event *event;
        unsigned max, per_uid;
        uint64_t deadline, patience;
        InspectDone done;
        void (*free_token)(void *token);
        void (*freed)(Inspector *in, void *userdata);
        void *userdata;
        Inspection *slots[INSPECT_MAX];
        MayBlock may_block[MAY_BLOCK_SLOTS];
        size_t next_may_block;
        uint64_t timeouts;
        unsigned rate, burst;   /* looks a second, and at once, for each uid but root's; 0: no limit */
        LookRate rates[RATE_UIDS];
        uint64_t rate_refused;
};

/* ---- the child ---- */

/* "\nUid:\t0\t0\t0\t0": the fourth value, the fs one (what opening a
 * file checks). */
static int status_fs_id(const char *status, const char *key, unsigned *ret) {
        const char *p = strstr(status, key);

        if (!p)
                return -EINVAL;
        return sscanf(p + strlen(key), " %*u %*u %*u %u", ret) == 1 ? 0 : -EINVAL;
}

/* "\nGroups:\t65534 100 \n" */
static int status_groups(const char *status, gid_t *ret, size_t *ret_n) {
        const char *p = strstr(status, "\nGroups:");
        size_t n = 0;

        if (!p)
                return -EINVAL;
        p += strlen("\nGroups:");
        for (;;) {
                unsigned g;
                int used;

                p += strspn(p, " \t");
                if (*p < '0' || *p > '9')
                        break;
                if (n == GROUPS_MAX || sscanf(p, "%u%n", &g, &used) != 1)
                        return -E2BIG;
                ret[n++] = (gid_t) g;
                p += used;
        }
        *ret_n = n;
        return 0;
}

static int read_at(int dirfd, const char *name, char **ret) {
        _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);

        if (fd < 0)
                return -errno;
        return fd_read_all(fd, 64 * 1024, ret, NULL);
}

/* Becomes the process as far as files go: its fs uid and gid (as all
 * three), its groups, no capabilities, not dumpable (it could ptrace us
 * otherwise: we are a copy of the daemon). */
static int become(uid_t uid, gid_t gid, const gid_t *groups, size_t n_groups) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct none[2] = {};

        if (prctl(PR_SET_DUMPABLE, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -errno;
        if (setgroups(n_groups, groups) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
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
 * its uid), checks it is the process asked for, and becomes it. */
static int take_process(const InspectTarget *t, InspectedProcess *p) {
        _cleanup_close_ int dirfd = -1, nsfd = -1;
        _cleanup_free_ char *stat = NULL, *status = NULL;
        gid_t groups[GROUPS_MAX];
        size_t n_groups;
        unsigned uid, gid;
        uint64_t start;
        char path[64];
        int r;

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
        if (status_fs_id(status, "\nUid:", &uid) < 0 || status_fs_id(status, "\nGid:", &gid) < 0 ||
            status_groups(status, groups, &n_groups) < 0)
                return -EINVAL;
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
        return become((uid_t) uid, (gid_t) gid, groups, n_groups);
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
        if (take_process(t, &p) < 0)
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
                if (q->owner->free_token)
                        q->owner->free_token(q->waiters[i]);
        free(q);
}

static void slot_clear(Inspection *q) {
        for (size_t i = 0; i < INSPECT_MAX; i++)
                if (q->owner->slots[i] == q)
                        q->owner->slots[i] = NULL;
        inspection_free(q);
}

static void mark_may_block(Inspector *in, uint64_t mntns, uid_t uid) {
        if (mntns == 0)
                return;
        in->may_block[in->next_may_block] = (MayBlock) {
                .mntns = mntns,
                .uid = uid,
                .until = now_usec(CLOCK_MONOTONIC) + INSPECT_MAY_BLOCK_USEC,
        };
        in->next_may_block = (in->next_may_block + 1) % MAY_BLOCK_SLOTS;
}

/* Tells each asker, once; the child is killed (it may have answered and
 * be on its way out: harmless), its exit still awaited. */
static void finish(Inspection *q, InspectOutcome outcome, const void *answer, int *fds, size_t n_fds) {
        Inspector *in = q->owner;
        size_t n = q->n_waiters;
        void *waiters[INSPECT_WAITERS_MAX];

        if (q->finished)
                return;
        q->finished = true;
        (void) pidfd_send_signal(q->pidfd, SIGKILL, NULL, 0);
        q->answer_source = sd_event_source_disable_unref(q->answer_source);
        q->deadline = sd_event_source_disable_unref(q->deadline);
        q->patience = sd_event_source_disable_unref(q->patience);
        q->sock = safe_close(q->sock);
        if (outcome == INSPECT_TIMED_OUT) {
                in->timeouts++;
                mark_may_block(in, q->target.mntns, q->target.uid);
        }
        memcpy(waiters, q->waiters, n * sizeof *waiters);
        q->n_waiters = 0;
        for (size_t i = 0; i < n; i++)
                in->done(in, outcome, answer, fds, n_fds, waiters[i], in->userdata);
        for (size_t i = 0; i < n_fds; i++)
                safe_close(fds[i]);
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
        if (n != (ssize_t) sizeof answer || (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) {
                for (size_t i = 0; i < n_fds; i++)
                        safe_close(fds[i]);
                finish(q, INSPECT_FAILED, NULL, NULL, 0);
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
        Inspector *in = q->owner;

        q->patience = sd_event_source_disable_unref(q->patience);
        for (size_t i = 0; i < q->n_waiters && !q->finished; i++)
                in->done(in, INSPECT_PENDING, NULL, NULL, 0, q->waiters[i], in->userdata);
        return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        Inspection *q = userdata;

        log_debug("Looking into process " PID_FMT " took over %llu ms: killed.", q->target.pid,
                  (unsigned long long) (q->owner->deadline / USEC_PER_MSEC));
        finish(q, INSPECT_TIMED_OUT, NULL, NULL, 0);
        return 0;
}

/* The child is gone: its answer, if it wrote one first, then its slot. */
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
        in = q->owner;
        slot_clear(q);
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

bool inspector_may_block(const Inspector *in, uint64_t mntns, uid_t uid) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        for (size_t i = 0; mntns != 0 && i < MAY_BLOCK_SLOTS; i++)
                if (in->may_block[i].mntns == mntns && in->may_block[i].uid == uid && now < in->may_block[i].until)
                        return true;
        return false;
}

size_t inspector_running(const Inspector *in) {
        size_t n = 0;

        for (size_t i = 0; in && i < INSPECT_MAX; i++)
                n += in->slots[i] != NULL;
        return n;
}

uint64_t inspector_timeouts(const Inspector *in) {
        return in ? in->timeouts : 0;
}

static Inspection *find_same(Inspector *in, const InspectTarget *t, const void *request, size_t size) {
        for (size_t i = 0; i < INSPECT_MAX; i++) {
                Inspection *q = in->slots[i];

                if (q && !q->finished && q->target.pid == t->pid && q->target.start == t->start &&
                    q->request_size == size && memcmp(q->request, request, size) == 0)
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

/* Takes one of uid's tokens: false if none is left. Root's looks are not
 * counted (nobody else can make a process of uid 0); a uid not seen lately
 * takes the place of the one idle the longest. */
static bool rate_take(Inspector *in, uid_t uid) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        LookRate *r = NULL, *oldest = &in->rates[0];

        if (in->rate == 0 || uid == 0)
                return true;
        for (size_t i = 0; i < RATE_UIDS && !r; i++) {
                if (in->rates[i].at != 0 && in->rates[i].uid == uid)
                        r = &in->rates[i];
                else if (in->rates[i].at < oldest->at)
                        oldest = &in->rates[i];
        }
        if (!r) {
                r = oldest;
                *r = (LookRate) { .uid = uid, .tokens = in->burst, .at = now };
        }
        r->tokens = MIN((double) in->burst, r->tokens + (double) (now - r->at) * in->rate / USEC_PER_SEC);
        r->at = now;
        if (r->tokens < 1) {
                in->rate_refused++;
                return false;
        }
        r->tokens -= 1;
        return true;
}

void inspector_set_rate(Inspector *in, unsigned per_second, unsigned burst) {
        if (!in)
                return;
        in->rate = per_second;
        in->burst = MAX(burst, 1u);
        memset(in->rates, 0, sizeof in->rates);
}

uint64_t inspector_rate_refused(const Inspector *in) {
        return in ? in->rate_refused : 0;
}

int inspector_ask(Inspector *in, const InspectTarget *t, InspectWork work, const void *request, size_t request_size,
                  void *token) {
        Inspection *q;
        size_t free_slot = INSPECT_MAX, of_uid = 0;
        int r;

        if (!in || !t || t->pid <= 0 || request_size > INSPECT_REQUEST_MAX)
                return -EINVAL;
        if (inspector_may_block(in, t->mntns, t->uid))
                return -EWOULDBLOCK;
        q = find_same(in, t, request, request_size);
        if (q) {
                if (in->patience > 0 && !q->patience)
                        return -EINPROGRESS;    /* past the patience already: do not wait */
                if (q->n_waiters == INSPECT_WAITERS_MAX)
                        return -ENOBUFS;
                q->waiters[q->n_waiters++] = token;
                return 0;
        }
        for (size_t i = 0; i < in->max; i++) {
                if (!in->slots[i])
                        free_slot = MIN(free_slot, i);
                else if (in->slots[i]->target.uid == t->uid)
                        of_uid++;
        }
        if (free_slot >= in->max || of_uid >= in->per_uid || !rate_take(in, t->uid))
                return -EBUSY;

        q = calloc(1, sizeof(Inspection));
        if (!q)
                return -ENOMEM;
        *q = (Inspection) { .owner = in, .target = *t, .request_size = request_size, .pidfd = -1, .sock = -1 };
        memcpy(q->request, request, request_size);
        r = start(in, q, work);
        if (r < 0) {
                inspection_free(q);
                return log_debug_errno(r, "Cannot start looking into process " PID_FMT ": %m", t->pid);
        }
        if (q->finished) {
                /* Started, but not watched: its exit source reaps it; the
                 * asker counts the read now. */
                in->slots[free_slot] = q;
                return -ENOMEM;
        }
        q->waiters[q->n_waiters++] = token;
        in->slots[free_slot] = q;
        return 0;
}

int inspector_new(sd_event *event, unsigned max, unsigned per_uid, InspectDone done, void (*free_token)(void *token),
                  void *userdata, Inspector **ret) {
        Inspector *in;

        if (max == 0 || max > INSPECT_MAX || per_uid == 0)
                return -EINVAL;
        in = calloc(1, sizeof(Inspector));
        if (!in)
                return -ENOMEM;
        in->max = max;
        in->per_uid = per_uid;
        in->deadline = INSPECT_DEADLINE_USEC;
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
        for (size_t i = 0; i < INSPECT_MAX; i++) {
                Inspection *q = in->slots[i];

                if (!q)
                        continue;
                /* Killed and reaped here: a child stuck in the kernel is
                 * left to init rather than waited for. */
                (void) pidfd_send_signal(q->pidfd, SIGKILL, NULL, 0);
                (void) waitid(P_PIDFD, (id_t) q->pidfd, &(siginfo_t) {}, WEXITED | WNOHANG);
                inspection_free(q);
        }
        sd_event_unref(in->event);
        free(in);
        return NULL;
}
