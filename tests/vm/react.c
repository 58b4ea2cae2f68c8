/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reaction latency of numastatd, for the VM tests and make bench-react:
 * how long from a reader's read() returning to the kernel counting NUMA
 * statistics again, and what the bare sysctl write costs.
 *
 *   react ROUNDS READFILE SYSCTL ONWORD [SETTLED-COMMAND]
 *   react write ROUNDS SYSCTL ONWORD OFFWORD
 *
 * The first form: each round waits (up to 30 s) until SYSCTL no longer
 * reads ONWORD (the daemon turned counting off), and then, if given, until
 * SETTLED-COMMAND (a shell command) returns: the sysctl reads off inside
 * the daemon's write, whose tail (the kernel patching its text, the read
 * back) would otherwise be timed as part of the next reaction. A varlink
 * call the daemon answers is such a command: it answers after the switch
 * is done. Then it reads READFILE to the end,
 * then polls SYSCTL until it reads ONWORD and records the time since the
 * first read() was called (the kernel queues the event inside it). The second times ROUNDS writes of ONWORD, each after a
 * write of OFFWORD (a write of the current value is a no-op in the kernel),
 * from open() to close(), as the daemon does them.
 * Both print "p50 p90 p99 max N" in microseconds, N the rounds measured. */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int sysctl_is(const char *path, const char *word) {
        char buf[64];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;
        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        buf[strcspn(buf, "\n")] = 0;
        return strcmp(buf, word) == 0;
}

static int cmp(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

static double write_word(const char *path, const char *word) {
        double t0 = now_us();
        int fd = open(path, O_WRONLY | O_CLOEXEC);

        if (fd < 0 || write(fd, word, strlen(word)) != (ssize_t) strlen(word)) {
                perror(path);
                exit(1);
        }
        close(fd);
        return now_us() - t0;
}

static int print_figures(double *lat, int done, int rounds) {
        if (done == 0) {
                printf("0 0 0 0 0\n");
                return 1;
        }
        qsort(lat, done, sizeof *lat, cmp);
        printf("%.0f %.0f %.0f %.0f %d\n", lat[done * 50 / 100], lat[done * 90 / 100], lat[done * 99 / 100],
               lat[done - 1], done);
        return done == rounds ? 0 : 1;
}

static int bench_write(int rounds, const char *sysctl, const char *on, const char *off) {
        double *lat = calloc(rounds, sizeof *lat);

        for (int i = 0; i < rounds; i++) {
                (void) write_word(sysctl, off);
                lat[i] = write_word(sysctl, on);
        }
        return print_figures(lat, rounds, rounds);
}

int main(int argc, char *argv[]) {
        int rounds, done = 0;
        double *lat;
        char buf[65536];

        if (argc == 6 && strcmp(argv[1], "write") == 0)
                return bench_write(atoi(argv[2]), argv[3], argv[4], argv[5]);
        if (argc != 5 && argc != 6) {
                fprintf(stderr, "usage: react ROUNDS READFILE SYSCTL ONWORD [SETTLED-COMMAND] | "
                                "react write ROUNDS SYSCTL ON OFF\n");
                return 2;
        }
        rounds = atoi(argv[1]);
        lat = calloc(rounds, sizeof *lat);
        for (int i = 0; i < rounds; i++) {
                double deadline = now_us() + 30e6, t0;
                int fd;

                while (sysctl_is(argv[3], argv[4]))
                        if (now_us() > deadline)
                                goto out;
                        else
                                usleep(1000);
                if (argc == 6 && system(argv[5]) != 0) {
                        fprintf(stderr, "react: %s failed\n", argv[5]);
                        goto out;
                }
                fd = open(argv[2], O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        return 1;
                /* The kernel queues the event inside the first read() that
                 * returns data: the clock starts when that read() is called
                 * (the conservative end: it includes the read itself). */
                t0 = now_us();
                if (read(fd, buf, sizeof buf) <= 0)
                        return 1;
                while (read(fd, buf, sizeof buf) > 0)
                        ;
                close(fd);
                while (!sysctl_is(argv[3], argv[4])) {
                        if (now_us() - t0 > 30e6)
                                goto out;
                }
                lat[done++] = now_us() - t0;
        }
out:
        return print_figures(lat, done, rounds);
}
