/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Floods for make bench-flood, as an unprivileged user would make them:
 *
 *   flood read N SECONDS FILE     N processes pread() FILE in a loop
 *   flood fork N SECONDS FILE     N loops each forking a child that reads
 *                                 FILE once and exits (exit records)
 *   flood spin SECONDS            counts loop turns on the CPU it is on,
 *                                 prints turns per second (a SCHED_OTHER
 *                                 task's progress beside the daemon)
 *   flood calls N SECONDS SOCKET [BATCH [BATCHES]]
 *                                 N connections to the varlink SOCKET, each
 *                                 sending BATCH (256) GetStatus calls in one
 *                                 send, reading their replies, again, for
 *                                 SECONDS or BATCHES batches; then it waits
 *                                 (FLOOD_DRAIN seconds, 60) for the replies
 *                                 to all it sent (FLOOD_CALL: another
 *                                 call than GetStatus; FLOOD_STARTED: a
 *                                 file made once they all start)
 *
 * Children drop to uid/gid 65534 when started as root (unless
 * FLOOD_KEEP_IDS is set; FLOOD_UIDS=FIRST:COUNT gives connection i the
 * uid FIRST + i % COUNT) and set their comm to "readflood" ("callflood"
 * for calls). Prints how many
 * reads were made, or for calls: "sent S answered A in_time W errors E
 * closed C last L": A replies to the S calls, W of them within SECONDS, E
 * of them errors, C connections closed by the daemon, the last reply L s
 * after the start. */

#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Child i's uid: 65534, or FIRST + i % COUNT of FLOOD_UIDS=FIRST:COUNT. */
static unsigned child_uid(int i) {
        const char *e = getenv("FLOOD_UIDS");
        unsigned first, count;

        if (e && sscanf(e, "%u:%u", &first, &count) == 2 && count > 0)
                return first + (unsigned) i % count;
        return 65534;
}

static void become_nobody(int i) {
        unsigned uid = child_uid(i);

        /* FLOOD_KEEP_IDS: started by uid 65534 already, as root of its own
         * user namespace (where 65534 is not mapped). */
        if (getuid() == 0 && !getenv("FLOOD_KEEP_IDS") &&
            (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0))
                _exit(100);
        (void) prctl(PR_SET_NAME, "readflood", 0, 0, 0);
}

static int spin(double seconds) {
        volatile uint64_t turns = 0;
        double end = now() + seconds;

        while (now() < end)
                for (int i = 0; i < 1000; i++)
                        turns++;
        printf("%.0f\n", (double) turns / seconds);
        return 0;
}

/* ---- calls: pipelined GetStatus calls on varlink connections ---- */

typedef struct CallFigures {
        uint64_t sent, answered, in_time, errors;
        bool closed;
        double last;            /* the last reply, CLOCK_MONOTONIC s */
} CallFigures;

static const char get_status[] = "{\"method\":\"io.numastatd.GetStatus\"}";

/* One connection's flood on fd, from start for seconds (or batches
 * batches), then waiting for what it sent until start + seconds + drain. */
static void call_flood(int fd, int batch, int batches, double start, double seconds, double drain, CallFigures *f) {
        const char *call = getenv("FLOOD_CALL") ?: get_status;
        size_t one = strlen(call) + 1, len = one * (size_t) batch, off = len;
        char *msg = malloc(len), buf[65536], head[48];
        size_t head_len = 0;
        uint64_t outstanding = 0;
        int done_batches = 0;

        if (!msg)
                _exit(1);
        for (int i = 0; i < batch; i++)
                memcpy(msg + one * (size_t) i, call, one);      /* the NUL included: the separator */
        (void) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        for (;;) {
                double t = now(), until = t < start + seconds ? start + seconds : start + seconds + drain;
                struct pollfd p = { .fd = fd, .events = POLLIN };

                if (off == len && outstanding == 0) {
                        if (t >= start + seconds || (batches > 0 && done_batches == batches))
                                break;
                        off = 0;
                        outstanding += (uint64_t) batch;
                        f->sent += (uint64_t) batch;
                        done_batches++;
                }
                if (t >= start + seconds + drain)
                        break;
                if (off < len)
                        p.events |= POLLOUT;
                if (poll(&p, 1, (int) ((until - t) * 1000) + 1) <= 0)
                        continue;
                if (p.revents & POLLOUT) {
                        ssize_t n = send(fd, msg + off, len - off, MSG_NOSIGNAL);
                        if (n < 0 && errno != EAGAIN && errno != EINTR) {
                                f->closed = true;
                                break;
                        }
                        if (n > 0)
                                off += (size_t) n;
                }
                if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
                        ssize_t n = recv(fd, buf, sizeof buf, 0);
                        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                                continue;
                        if (n <= 0) {
                                f->closed = true;
                                break;
                        }
                        t = now();
                        for (ssize_t i = 0; i < n; i++) {
                                if (buf[i] != '\0') {
                                        if (head_len < sizeof head - 1)
                                                head[head_len++] = buf[i];
                                        continue;
                                }
                                /* A reply: an error's "error" key comes before any status. */
                                head[head_len] = '\0';
                                if (strstr(head, "\"error\""))
                                        f->errors++;
                                head_len = 0;
                                f->answered++;
                                outstanding -= outstanding > 0;
                                if (t < start + seconds)
                                        f->in_time++;
                                f->last = t;
                        }
                }
        }
        free(msg);
}

static int calls(int n, double seconds, const char *path, int batch, int batches) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        const char *e = getenv("FLOOD_DRAIN");
        double drain = e ? atof(e) : 60, *start, last = 0;
        CallFigures *f, sum = { 0 };
        int gate[2];
        size_t size = sizeof(double) + (size_t) n * sizeof *f;

        if (n <= 0 || batch <= 0 || strlen(path) >= sizeof sa.sun_path)
                return 2;
        strcpy(sa.sun_path, path);
        start = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (start == MAP_FAILED || pipe(gate) < 0)
                return 1;
        f = (CallFigures *) (start + 1);
        for (int i = 0; i < n; i++) {
                pid_t pid = fork();
                char c;
                int fd;

                if (pid < 0)
                        break;
                if (pid > 0)
                        continue;
                become_nobody(i);
                /* Not "readflood": the storm's end kills those by name. */
                (void) prctl(PR_SET_NAME, "callflood", 0, 0, 0);
                close(gate[1]);
                /* Connected before the start: the flood is N at once. */
                fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                        f[i].closed = true;
                (void) read(gate[0], &c, 1);
                close(gate[0]);
                if (!f[i].closed)
                        call_flood(fd, batch, batches, *start, seconds, drain, &f[i]);
                _exit(0);
        }
        /* The children connect while the parent waits a moment; then all start. */
        usleep(200 * 1000);
        *start = now();
        close(gate[1]);
        close(gate[0]);
        if (getenv("FLOOD_STARTED"))
                (void) close(open(getenv("FLOOD_STARTED"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
        while (wait(NULL) > 0 || errno == EINTR)
                ;
        for (int i = 0; i < n; i++) {
                sum.sent += f[i].sent;
                sum.answered += f[i].answered;
                sum.in_time += f[i].in_time;
                sum.errors += f[i].errors;
                sum.closed += f[i].closed;
                if (f[i].last > last)
                        last = f[i].last;
        }
        printf("sent %llu answered %llu in_time %llu errors %llu closed %u last %.2f\n", (unsigned long long) sum.sent,
               (unsigned long long) sum.answered, (unsigned long long) sum.in_time, (unsigned long long) sum.errors,
               (unsigned) sum.closed, last > 0 ? last - *start : 0.0);
        return 0;
}

int main(int argc, char **argv) {
        uint64_t *total;
        volatile double *start;
        int gate[2];            /* closed by the parent once all are forked: the start */
        int n;
        double seconds, end;
        const char *file;
        bool fork_mode;

        if (argc == 3 && strcmp(argv[1], "spin") == 0)
                return spin(atof(argv[2]));
        if (argc >= 5 && argc <= 7 && strcmp(argv[1], "calls") == 0)
                return calls(atoi(argv[2]), atof(argv[3]), argv[4], argc > 5 ? atoi(argv[5]) : 256,
                             argc > 6 ? atoi(argv[6]) : 0);
        if (argc != 5 || (strcmp(argv[1], "read") != 0 && strcmp(argv[1], "fork") != 0)) {
                fprintf(stderr, "usage: flood read|fork N SECONDS FILE | flood spin SECONDS |\n"
                                "       flood calls N SECONDS SOCKET [BATCH [BATCHES]]\n");
                return 2;
        }
        fork_mode = strcmp(argv[1], "fork") == 0;
        n = atoi(argv[2]);
        seconds = atof(argv[3]);
        file = argv[4];
        total = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (total == MAP_FAILED)
                return 1;
        /* All start together, once all are forked (the flood is N at once,
         * not a ramp), and read for SECONDS from then. */
        start = (volatile double *) (total + 1);
        if (pipe(gate) < 0)
                return 1;

        for (int i = 0; i < n; i++) {
                pid_t pid = fork();

                if (pid < 0)
                        break;
                if (pid > 0)
                        continue;
                become_nobody(i);
                uint64_t mine = 0;
                char buf[64];
                close(gate[1]);
                (void) read(gate[0], buf, 1);   /* EOF: all are forked */
                close(gate[0]);
                end = *start + seconds;
                if (!fork_mode) {
                        int fd = open(file, O_RDONLY | O_CLOEXEC);
                        if (fd < 0)
                                _exit(1);
                        while (now() < end)
                                if (pread(fd, buf, sizeof buf, 0) > 0)
                                        mine++;
                } else
                        while (now() < end) {
                                pid_t c = fork();
                                if (c == 0) {
                                        int fd = open(file, O_RDONLY | O_CLOEXEC);
                                        _exit(fd >= 0 && read(fd, buf, sizeof buf) > 0 ? 0 : 1);
                                }
                                if (c < 0)
                                        continue;
                                (void) waitpid(c, NULL, 0);
                                mine++;
                        }
                __atomic_add_fetch(total, mine, __ATOMIC_RELAXED);
                _exit(0);
        }
        *start = now();
        close(gate[1]);
        close(gate[0]);
        while (wait(NULL) > 0 || errno == EINTR)
                ;
        printf("%llu\n", (unsigned long long) *total);
        return 0;
}
