/* What a local user runs against the daemon's looks into processes
 * (tests/integration/looks.sh). Linked statically: a copy of it runs in a
 * root of its own as a catalogued reader's binary.
 *
 *   attacker stop-children PID SECONDS [kill]
 *      For SECONDS, stops (SIGSTOP; with kill, kills) every child of PID it
 *      may signal, each once, as soon as it appears (the daemon's children
 *      file is world-readable); prints "stopped CHILD" for each.
 *   attacker namespaces N MOUNTERS READY
 *      N processes, each alone in a user and mount namespace of its own
 *      (its uid mapped to 0 there); the first MOUNTERS of them mount a
 *      tmpfs every 100 ms, stacked, unmounting them 50 at a time. Creates READY once all
 *      are made, then waits; its children die with it.
 *   attacker readers N ROOT FILE PERIOD_MS READY [SPACING_MS]
 *      As root of a user namespace with a range of uids: N readers, each
 *      as uid 1..N there, chrooted into ROOT, running ROOT's /bin/node_exporter
 *      (a copy of this program) to read FILE every PERIOD_MS, the i-th
 *      starting (i - 1) * SPACING_MS from now; creates READY once all are
 *      forked, then waits; they die with it.
 *   attacker read FILE PERIOD_MS
 *      Reads FILE every PERIOD_MS, for ever (0: once, and exits); as
 *      ATTACK_NAME (its comm), if set.
 *
 * A library of this project (attacker-preload.so) is the last attack: a
 * catalogued program that runs a set-user-ID one just after its read. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms) {
        struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

        while (nanosleep(&t, &t) < 0 && errno == EINTR)
                ;
}

static double now(void) {
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

static int read_once(const char *path) {
        char buf[4096];
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        while (read(fd, buf, sizeof buf) > 0)
                ;
        close(fd);
        return 0;
}

static int cmd_read(const char *path, long period) {
        if (getenv("ATTACK_NAME"))
                (void) prctl(PR_SET_NAME, getenv("ATTACK_NAME"));
        for (;;) {
                if (read_once(path) < 0)
                        return 1;
                if (period <= 0)
                        return 0;
                sleep_ms(period);
        }
}

static int cmd_stop_children(pid_t pid, double seconds, int sig) {
        char path[64], buf[65536];
        pid_t stopped[4096];
        size_t n = 0;
        double end = now() + seconds;
        int fd;

        /* Reread through one fd, as fast as it goes: a look lives a
         * millisecond. */
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int) pid, (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;       /* the daemon is gone */
        for (unsigned long turn = 0; (turn & 1023) != 0 || now() < end; turn++) {
                ssize_t l = pread(fd, buf, sizeof buf - 1, 0);

                if (l < 0)
                        break;
                buf[l] = '\0';
                for (char *p = buf, *q; *p; p = q) {
                        long child = strtol(p, &q, 10);
                        bool seen = false;

                        if (q == p)
                                break;
                        for (size_t i = 0; i < n && !seen; i++)
                                seen = stopped[i] == child;
                        if (!seen && n < sizeof stopped / sizeof stopped[0] && kill((pid_t) child, sig) == 0) {
                                stopped[n++] = (pid_t) child;
                                printf("stopped %ld\n", child);
                                fflush(stdout);
                        }
                }
        }
        close(fd);
        return 0;
}

static int write_file(const char *path, const char *text) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return -errno;
        n = write(fd, text, strlen(text));
        close(fd);
        return n == (ssize_t) strlen(text) ? 0 : -EIO;
}

/* In a new user and mount namespace, our uid and gid mapped to 0. */
static int own_namespaces(void) {
        uid_t uid = getuid();
        gid_t gid = getgid();
        char map[64];

        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
                return -errno;
        snprintf(map, sizeof map, "0 %u 1", (unsigned) uid);
        if (write_file("/proc/self/uid_map", map) < 0 || write_file("/proc/self/setgroups", "deny") < 0)
                return -EIO;
        snprintf(map, sizeof map, "0 %u 1", (unsigned) gid);
        if (write_file("/proc/self/gid_map", map) < 0)
                return -EIO;
        return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ? -errno : 0;
}

static void touch(const char *path) {
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

        if (fd >= 0)
                close(fd);
}

/* Each child dies with us; one that cannot be set up says so. */
static pid_t child_of_ours(void) {
        pid_t parent = getpid(), pid = fork();

        if (pid == 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent))
                _exit(1);
        return pid;
}

static int cmd_namespaces(long n, long mounters, const char *ready) {
        int pipefd[2];
        char c;

        if (pipe(pipefd) < 0)
                return 1;
        for (long i = 0; i < n; i++) {
                pid_t pid = child_of_ours();

                if (pid < 0) {
                        perror("fork");
                        return 1;
                }
                if (pid == 0) {
                        close(pipefd[0]);
                        if (own_namespaces() < 0)
                                _exit(2);
                        (void) write(pipefd[1], "x", 1);
                        close(pipefd[1]);
                        /* Stacked, so that each mount is still there when
                         * the daemon asks where it is; 50 at a time. */
                        for (unsigned k = 1; i < mounters; k++) {
                                (void) mount("t", "/tmp", "tmpfs", 0, NULL);
                                if (k % 50 == 0)
                                        while (umount("/tmp") == 0)
                                                ;
                                sleep_ms(100);
                        }
                        for (;;)
                                pause();
                }
        }
        close(pipefd[1]);
        for (long i = 0; i < n; i++)
                if (read(pipefd[0], &c, 1) != 1) {
                        fprintf(stderr, "attacker: only %ld of %ld namespaces made\n", i, n);
                        return 1;
                }
        touch(ready);
        for (;;)
                pause();
}

static int cmd_readers(long n, const char *root, const char *file, const char *period, const char *ready,
                       long spacing) {
        for (long i = 1; i <= n; i++) {
                pid_t pid = child_of_ours();

                if (pid < 0)
                        return 1;
                if (pid == 0) {
                        if (spacing > 0)
                                sleep_ms(spacing * (i - 1));
                        if (chroot(root) < 0 || chdir("/") < 0 || setgroups(0, NULL) < 0 ||
                            setresgid((gid_t) i, (gid_t) i, (gid_t) i) < 0 || setresuid((uid_t) i, (uid_t) i, (uid_t) i) < 0)
                                _exit(2);
                        execl("/bin/node_exporter", "node_exporter", "read", file, period, (char *) NULL);
                        _exit(3);
                }
        }
        touch(ready);
        for (;;)
                pause();
}

int main(int argc, char **argv) {
        if (argc == 4 && strcmp(argv[1], "read") == 0)
                return cmd_read(argv[2], atol(argv[3]));
        if ((argc == 4 || (argc == 5 && strcmp(argv[4], "kill") == 0)) && strcmp(argv[1], "stop-children") == 0)
                return cmd_stop_children((pid_t) atol(argv[2]), atof(argv[3]), argc == 5 ? SIGKILL : SIGSTOP);
        if (argc == 5 && strcmp(argv[1], "namespaces") == 0)
                return cmd_namespaces(atol(argv[2]), atol(argv[3]), argv[4]);
        if ((argc == 7 || argc == 8) && strcmp(argv[1], "readers") == 0)
                return cmd_readers(atol(argv[2]), argv[3], argv[4], argv[5], argv[6], argc == 8 ? atol(argv[7]) : 0);
        fprintf(stderr, "usage: attacker read FILE MS | stop-children PID SECONDS [kill] | namespaces N MOUNTERS READY |"
                        " readers N ROOT FILE MS READY [SPACING_MS]\n");
        return 2;
}
