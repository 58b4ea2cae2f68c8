/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* exit-burst N: N children that exit at once, one after another, as fast
 * as the machine forks (a shell loop makes some 250 a second here; this
 * some 20,000): a daemon behind on its exit records, in a test's time. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
        long n = argc == 2 ? strtol(argv[1], NULL, 10) : -1;

        if (n < 0) {
                fprintf(stderr, "usage: exit-burst N\n");
                return 2;
        }
        for (long i = 0; i < n; i++) {
                pid_t pid = vfork();

                if (pid < 0) {
                        perror("vfork");
                        return 1;
                }
                if (pid == 0)
                        _exit(0);
                (void) waitpid(pid, NULL, 0);
        }
        return 0;
}
