/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "restore.h"
#include "rootfs.h"
#include "verdict.h"

static void help(void) {
        printf("Usage: numastatd [OPTION...]\n"
               "Decides whether the kernel keeps NUMA statistics, and explains why.\n\n"
               "  -c --config=FILE      configuration file (default " DEFAULT_CONFIG_PATH ")\n"
               "  -r --root=DIR         resolve /proc and /sys under DIR (default /)\n"
               "  -s --socket=PATH      varlink socket (default: the config's, " DEFAULT_SOCKET_PATH ")\n"
               "  -n --dry-run          decide and report, never write the kernel mode\n"
               "     --check-config     validate the configuration and exit (0 valid, 1 not)\n"
               "     --restore          after a crash: put back the mode a dead daemon recorded, and exit\n"
               "     --runtime-dir=DIR  the crash-restore state's directory (default $RUNTIME_DIRECTORY,\n"
               "                        else " DEFAULT_RUNTIME_DIR ")\n"
               "     --log-level=LEVEL  emerg..debug (default info)\n"
               "  -h --help             show this help\n"
               "  -V --version          show the version\n");
}

typedef struct Args {
        ManagerOptions manager;
        bool check_config;
        bool restore;
} Args;

/* Parses the command line into *args. Returns 1 to go on, 0 to exit with
 * success (--help, --version), negative to exit with failure. */
static int parse_argv(int argc, char *argv[], Args *args) {
        enum { ARG_CHECK_CONFIG = 0x100, ARG_LOG_LEVEL, ARG_RESTORE, ARG_RUNTIME_DIR };
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "root", required_argument, NULL, 'r' },
                { "socket", required_argument, NULL, 's' },
                { "dry-run", no_argument, NULL, 'n' },
                { "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
                { "restore", no_argument, NULL, ARG_RESTORE },
                { "runtime-dir", required_argument, NULL, ARG_RUNTIME_DIR },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {}
        };
        int c, r;

        /* Our own words for a bad option, not getopt's (which names the
         * program by the path it was run as). */
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":c:r:s:nhV", options, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        args->manager.config_path = optarg;
                        break;
                case 'r':
                        args->manager.root = optarg;
                        break;
                case 's':
                        if (optarg[0] != '/')
                                return log_error_errno(EINVAL, "--socket needs an absolute path: %s", optarg);
                        args->manager.socket_path = optarg;
                        break;
                case 'n':
                        args->manager.dry_run = true;
                        break;
                case ARG_CHECK_CONFIG:
                        args->check_config = true;
                        break;
                case ARG_RESTORE:
                        args->restore = true;
                        break;
                case ARG_RUNTIME_DIR:
                        if (optarg[0] != '/')
                                return log_error_errno(EINVAL, "--runtime-dir needs an absolute path: %s", optarg);
                        args->manager.runtime_dir = optarg;
                        break;
                case ARG_LOG_LEVEL:
                        r = log_level_from_string(optarg);
                        if (r < 0)
                                return log_error_errno(EINVAL, "Unknown log level '%s'.", optarg);
                        log_set_max_level(r);
                        break;
                case 'h':
                        help();
                        return 0;
                case 'V':
                        printf("numastatd %s\nvarlink server: %s\n", PACKAGE_VERSION, VARLINK_SERVER_IMPL);
                        return 0;
                case ':':
                        return log_error_errno(EINVAL, "Option '%s' needs a value. See --help.", argv[optind - 1]);
                default:
                        if (optopt)
                                return log_error_errno(EINVAL, "Unknown option '-%c'. See --help.", optopt);
                        return log_error_errno(EINVAL, "Unknown option '%s'. See --help.", argv[optind - 1]);
                }
        }
        if (optind < argc)
                return log_error_errno(EINVAL, "Unexpected argument '%s'. See --help.", argv[optind]);
        return 1;
}

static int run_restore(const Args *args) {
        _cleanup_free_ char *dir = manager_runtime_dir(args->manager.runtime_dir), *root = NULL, *why = NULL;
        _cleanup_close_ int fd = -1;
        bool did;
        int r;

        if (!dir)
                return log_oom();
        r = root_normalize(args->manager.root ?: "/", &root);
        if (r < 0)
                return log_error_errno(r, "Invalid root directory '%s': %m", args->manager.root);
        r = restore_dir_open(dir, &fd, &why);
        if (r < 0)
                return log_error_errno(r, "Cannot restore: %s.", why ? why : "the runtime directory is not usable");
        r = restore_apply(fd, root, true, &did);
        if (r >= 0 && !did)
                log_info("Nothing to restore: no state in %s (the daemon stopped cleanly, or it was restored already).",
                         dir);
        return r;
}

/* Parses, validates and hands off to the manager. */
/* Containers' statistics files are kept open (O_PATH), up to 250 of each
 * of 256 instances: the soft limit (often 1024) goes up to the hard one,
 * 65536 at most. Under the unit, LimitNOFILE= does it (setrlimit() is in
 * the @resources its seccomp filter refuses). */
static void raise_fd_limit(void) {
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= MIN(rl.rlim_max, (rlim_t) 65536))
                return;
        rl.rlim_cur = MIN(rl.rlim_max, (rlim_t) 65536);
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                log_debug_errno(errno, "Cannot raise the open files limit: %m");
}

static int run(int argc, char *argv[]) {
        static const int signals[] = { SIGTERM, SIGINT, SIGHUP };
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_free_ char *error = NULL;
        _cleanup_(config_done) Config config;
        Args args = {};
        sigset_t mask;
        int r;

        log_set_ident("numastatd");
        config_init(&config);
        r = parse_argv(argc, argv, &args);
        if (r <= 0)
                return r;

        /* The default path may be absent (defaults apply); a named one must exist. */
        r = config_load(&config, args.manager.config_path ?: DEFAULT_CONFIG_PATH, args.manager.config_path != NULL,
                        &error);
        if (r < 0)
                return log_error_errno(r, "%s", error ? error : "Invalid configuration.");
        if (args.check_config) {
                const char *path = args.manager.config_path ?: DEFAULT_CONFIG_PATH;

                /* Warnings, not errors: the daemon would start with this. */
                rules_resolve_exes(config.ignore, config.n_ignore);
                rules_resolve_exes(config.count, config.n_count);
                if (access(path, F_OK) < 0 && errno == ENOENT)
                        printf("%s: not found, the built-in defaults apply: OK\n", path);
                else
                        printf("%s: OK\n", path);
                return 0;
        }
        if (args.restore)
                return run_restore(&args);

        /* Blocked before anything starts, so a signal that comes early is
         * queued for the loop's signalfd, not fatal. */
        sigemptyset(&mask);
        for (size_t i = 0; i < ELEMENTSOF(signals); i++)
                sigaddset(&mask, signals[i]);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return log_error_errno(errno, "Cannot block signals: %m");

        raise_fd_limit();
        r = manager_new(&args.manager, &config, &m);
        if (r < 0)
                return r;
        r = manager_start(m);
        if (r < 0)
                return r;
        return manager_run(m);
}

int main(int argc, char *argv[]) {
        return run(argc, argv) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
