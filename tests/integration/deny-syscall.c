/* Runs a program with system call NR answering ERRNO, as a seccomp filter
 * older than the call makes it (systemd 252's SystemCallFilter= knows
 * nothing of statmount(), Linux 6.8's: under the shipped unit on Debian 12
 * the daemon gets an error for it).
 *
 *   deny-syscall NR ERRNO PROGRAM [ARG...] */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv) {
        if (argc < 4) {
                fprintf(stderr, "usage: deny-syscall NR ERRNO PROGRAM [ARG...]\n");
                return 2;
        }
        unsigned nr = (unsigned) atoi(argv[1]), err = (unsigned) atoi(argv[2]);
        struct sock_filter code[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };

        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
                perror("deny-syscall: seccomp");
                return 1;
        }
        execvp(argv[3], argv + 3);
        perror("deny-syscall: exec");
        return 127;
}
