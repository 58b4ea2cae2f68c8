/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "restore.h"

static void help(void) {
        printf("Usage: numastatd [OPTION...]\n"
               "Decides whether the kernel keeps NUMA statistics, and explains why.\n\n"
               "  -c --config=FILE      configuration file (default " DEFAULT_CONFIG_PATH ")\n"
               "  -r --root=DIR         resolve /proc and /sys under DIR (default /)\n"
               "  -s --socket=PATH      varlink socket (default: the config's, " DEFAULT_SOCKET_PATH ")\n"
               "  -n --dry-run          decide and report, never write the kernel mode\n"
               "     --check-config     validate the configuration and exit (0 valid, 1 not)\n"
               "     --restore          after a crash: put back the mode a dead daemon recorded, and exit\n"
               "     --log-level=LEVEL  emerg..debug (default info)\n"
               "  -h --help             show this help\n"
               "  -V --version          show the version\n");
}

int main(int argc, char *argv[]) {
        enum { ARG_CHECK_CONFIG = 0x100, ARG_LOG_LEVEL, ARG_RESTORE };
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "root", required_argument, NULL, 'r' },
                { "socket", required_argument, NULL, 's' },
                { "dry-run", no_argument, NULL, 'n' },
                { "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
                { "restore", no_argument, NULL, ARG_RESTORE },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {}
        };
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_free_ char *error = NULL;
        ManagerOptions opts = {};
        bool check_config = false, restore = false;
        Config config;
        int c, r;

        log_set_ident("numastatd");
        while ((c = getopt_long(argc, argv, "c:r:s:nhV", options, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        opts.config_path = optarg;
                        break;
                case 'r':
                        opts.root = optarg;
                        break;
                case 's':
                        if (optarg[0] != '/') {
                                log_error("--socket needs an absolute path: %s", optarg);
                                return EXIT_FAILURE;
                        }
                        opts.socket_path = optarg;
                        break;
                case 'n':
                        opts.dry_run = true;
                        break;
                case ARG_CHECK_CONFIG:
                        check_config = true;
                        break;
                case ARG_RESTORE:
                        restore = true;
                        break;
                case ARG_LOG_LEVEL:
                        r = log_level_from_string(optarg);
                        if (r < 0) {
                                log_error("Unknown log level '%s'.", optarg);
                                return EXIT_FAILURE;
                        }
                        log_set_max_level(r);
                        break;
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case 'V':
                        printf("numastatd %s\n", PACKAGE_VERSION);
                        return EXIT_SUCCESS;
                default:
                        return EXIT_FAILURE;
                }
        }
        if (optind < argc) {
                log_error("Unexpected argument '%s'. See --help.", argv[optind]);
                return EXIT_FAILURE;
        }

        /* The default path may be absent (defaults apply); a named one must exist. */
        config_init(&config);
        r = config_load(&config, opts.config_path ? opts.config_path : DEFAULT_CONFIG_PATH,
                        opts.config_path != NULL, &error);
        if (r < 0) {
                log_error("%s", error ? error : "Invalid configuration.");
                config_done(&config);
                return EXIT_FAILURE;
        }
        if (check_config) {
                printf("%s: OK\n", opts.config_path ? opts.config_path : DEFAULT_CONFIG_PATH);
                config_done(&config);
                return EXIT_SUCCESS;
        }

        if (restore) {
                _cleanup_free_ char *path = NULL;
                bool did;

                r = restore_state_path(opts.socket_path ? opts.socket_path : config.socket, &path);
                config_done(&config);
                if (r < 0)
                        return log_oom(), EXIT_FAILURE;
                r = restore_apply(path, &did);
                if (r >= 0 && !did)
                        log_info("Nothing to restore: no state in %s (the daemon stopped cleanly).", path);
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        }

        r = manager_new(&opts, &config, &m);
        config_done(&config);
        if (r < 0)
                return EXIT_FAILURE;
        r = manager_start(m);
        if (r < 0)
                return EXIT_FAILURE;
        r = manager_run(m);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
