/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Floods for make bench-flood, as an unprivileged user would make them:
 *
 *   flood read N SECONDS FILE     N processes pread() FILE in a loop
 *   flood fork N SECONDS FILE     N loops each forking a child that reads
 *                                 FILE once and exits (exit records)
 *   flood spin SECONDS            counts loop turns on the CPU it is on,
 *                                 prints turns per second (a SCHED_OTHER
 *                                 task's progress beside the daemon)
 *
 * Children drop to uid/gid 65534 when started as root (unless
 * FLOOD_KEEP_IDS is set) and set their comm to "readflood". Prints how many
 * reads were made. */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void become_nobody(void) {
        /* FLOOD_KEEP_IDS: started by uid 65534 already, as root of its own
         * user namespace (where 65534 is not mapped). */
        if (getuid() == 0 && !getenv("FLOOD_KEEP_IDS") &&
            (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0))
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
        if (argc != 5 || (strcmp(argv[1], "read") != 0 && strcmp(argv[1], "fork") != 0)) {
                fprintf(stderr, "usage: flood read|fork N SECONDS FILE | flood spin SECONDS\n");
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
                become_nobody();
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
