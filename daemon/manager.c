/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "log.h"
#include "macro.h"
#include "manager.h"
#include "rootfs.h"
#include "service.h"

static uint64_t now_realtime(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / NSEC_PER_USEC;
}

static bool effective_dry_run(const Manager *m) {
        return m->dry_run_override || m->config.dry_run;
}

int manager_new(const ManagerOptions *opts, Config *config, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        int r;

        m = calloc(1, sizeof *m);
        if (!m)
                return log_oom();
        config_init(&m->config);
        config_done(&m->config);
        m->config = *config;
        *config = (Config){};

        r = root_normalize(opts->root ? opts->root : "/", &m->root);
        if (r < 0)
                return log_error_errno(r, "Invalid root directory '%s': %m", opts->root);
        m->config_path = strdup(opts->config_path ? opts->config_path : DEFAULT_CONFIG_PATH);
        if (!m->config_path)
                return log_oom();
        m->config_must_exist = opts->config_path != NULL;
        if (opts->socket_path) {
                m->socket_override = strdup(opts->socket_path);
                if (!m->socket_override)
                        return log_oom();
        }
        m->dry_run_override = opts->dry_run;
        m->policy = m->config.mode;
        m->dry_run = effective_dry_run(m);
        m->started = now_realtime();
        m->kernel_mode = m->initial_mode = KERNEL_MODE_UNKNOWN;

        r = sd_event_default(&m->event);
        if (r < 0)
                return log_error_errno(r, "Cannot allocate event loop: %m");

        *ret = TAKE_PTR(m);
        return 0;
}

static void transition_done(Transition *t) {
        free(t->reason);
        t->reason = NULL;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n_monitors; i++)
                varlink_unref(m->monitors[i]);
        free(m->monitors);
        if (m->varlink) {
                varlink_server_shutdown(m->varlink);
                varlink_server_unref(m->varlink);
        }
        if (m->bound_socket)
                (void) unlink(m->bound_socket);
        free(m->bound_socket);
        for (size_t i = 0; i < m->n_transitions; i++)
                transition_done(&m->transitions[(m->transitions_first + i) % TRANSITIONS_MAX]);
        topology_done(&m->topology);
        config_done(&m->config);
        free(m->config_error);
        free(m->last_error.message);
        free(m->last_status_sent);
        free(m->root);
        free(m->config_path);
        free(m->socket_override);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

const Transition *manager_transition(const Manager *m, size_t i) {
        return &m->transitions[(m->transitions_first + i) % TRANSITIONS_MAX];
}

static void manager_record_transition(Manager *m, KernelMode from, KernelMode to, bool dry_run) {
        Transition *t;

        if (m->n_transitions == TRANSITIONS_MAX) {
                t = &m->transitions[m->transitions_first];
                transition_done(t);
                m->transitions_first = (m->transitions_first + 1) % TRANSITIONS_MAX;
                m->n_transitions--;
        }
        t = &m->transitions[(m->transitions_first + m->n_transitions) % TRANSITIONS_MAX];
        *t = (Transition){
                .time = now_realtime(),
                .from = from,
                .to = to,
                .policy = m->policy,
                .dry_run = dry_run,
                .reason = strdup(m->decision.reason),
        };
        m->n_transitions++;
        m->transitions_total++;
}

static void manager_set_error(Manager *m, int error, char **message) {
        free(m->last_error.message);
        m->last_error = (ManagerError){
                .time = now_realtime(),
                .error = abs(error),
                .message = TAKE_PTR(*message),
        };
}

static void manager_clear_error(Manager *m) {
        free(m->last_error.message);
        m->last_error = (ManagerError){};
}

void manager_state_changed(Manager *m) {
        service_notify_monitors(m);
        (void) sd_notifyf(false, "STATUS=NUMA statistics %s (policy %s%s): %s",
                          kernel_mode_to_string(m->kernel_mode), policy_to_string(m->policy),
                          m->dry_run ? ", dry run" : "", m->decision.reason);
}

static int manager_write_mode(Manager *m, KernelMode to, const char *why) {
        _cleanup_free_ char *error = NULL;
        int r;

        r = backend_write(m->root, m->backend, to, &error);
        if (r < 0) {
                log_error_errno(r, "Cannot switch NUMA statistics to %s (%s): %s",
                                kernel_mode_to_string(to), why, error ? error : "unknown error");
                if (!error)
                        error = strdup("cannot write the kernel mode");
                manager_set_error(m, r, &error);
                /* The write may have half-happened; believe the kernel, not us. */
                (void) backend_read(m->root, m->backend, &m->kernel_mode, NULL);
                return r;
        }
        m->wrote_kernel = true;
        return 0;
}

int manager_apply(Manager *m) {
        PolicyInput in = { .policy = m->policy, .backend = m->backend };
        Decision d;
        KernelMode from;
        bool decision_changed;
        int r = 0;

        policy_decide(&in, &d);
        decision_changed = !m->have_decision || d.mode != m->decision.mode ||
                           strcmp(d.reason, m->decision.reason) != 0;
        m->decision = d;
        m->have_decision = true;

        if (d.mode == KERNEL_MODE_UNKNOWN)
                goto done;

        /* Believe the kernel, not our memory of it. */
        {
                _cleanup_free_ char *error = NULL;
                r = backend_read(m->root, m->backend, &m->kernel_mode, &error);
                if (r < 0) {
                        log_warning_errno(r, "%s", error ? error : "cannot read the kernel mode");
                        m->kernel_mode = KERNEL_MODE_UNKNOWN;
                }
        }
        from = m->kernel_mode;
        if (from == d.mode) {
                r = 0;
                manager_clear_error(m);
                goto done;
        }

        if (m->dry_run) {
                r = 0;
                if (decision_changed) {
                        log_info("Dry run: would switch NUMA statistics from %s to %s: %s",
                                 kernel_mode_to_string(from), kernel_mode_to_string(d.mode), d.reason);
                        manager_record_transition(m, from, d.mode, true);
                }
                goto done;
        }

        r = manager_write_mode(m, d.mode, d.reason);
        if (r < 0)
                goto done;
        m->kernel_mode = d.mode;
        manager_clear_error(m);
        manager_record_transition(m, from, d.mode, false);
        log_info("Switched NUMA statistics from %s to %s: %s", kernel_mode_to_string(from),
                 kernel_mode_to_string(d.mode), d.reason);
done:
        manager_state_changed(m);
        return r;
}

int manager_set_policy(Manager *m, Policy policy, int dry_run) {
        log_info("Policy set to %s%s by a client (was %s%s).", policy_to_string(policy),
                 dry_run > 0 ? ", dry run" : dry_run == 0 ? ", no dry run" : "",
                 policy_to_string(m->policy), m->dry_run ? ", dry run" : "");
        m->policy = policy;
        m->policy_from_client = true;
        if (dry_run >= 0)
                m->dry_run = dry_run;
        return manager_apply(m);
}

int manager_reload(Manager *m, char **ret_error) {
        _cleanup_free_ char *error = NULL;
        Config c;
        int r;

        (void) sd_notify(false, "RELOADING=1");
        config_init(&c);
        r = config_load(&c, m->config_path, m->config_must_exist, &error);
        if (r < 0) {
                config_done(&c);
                log_error("Reload rejected, keeping the running configuration: %s",
                          error ? error : "invalid configuration");
                free(m->config_error);
                m->config_error = error ? strdup(error) : strdup("invalid configuration");
                if (ret_error)
                        *ret_error = TAKE_PTR(error);
                (void) sd_notify(false, "READY=1");
                manager_state_changed(m);
                return r;
        }

        if (!streq_ptr(c.socket, m->config.socket) && !m->socket_override)
                log_warning("The varlink socket path changed to %s; it takes effect at the next restart.",
                            c.socket);
        config_done(&m->config);
        m->config = c;
        m->config_error = (free(m->config_error), NULL);
        m->policy = m->config.mode;
        m->policy_from_client = false;
        m->dry_run = effective_dry_run(m);
        log_info("Configuration reloaded from %s: policy %s%s.", m->config_path,
                 policy_to_string(m->policy), m->dry_run ? ", dry run" : "");

        /* A failed write is logged and in status; the reload itself worked. */
        (void) manager_apply(m);
        (void) sd_notify(false, "READY=1");
        return 0;
}

int manager_restore(Manager *m) {
        KernelMode to = policy_exit_mode(m->config.exit_mode, m->backend, m->initial_mode);
        KernelMode now = KERNEL_MODE_UNKNOWN;
        int r;

        if (to == KERNEL_MODE_UNKNOWN)
                return 0;
        /* A dry run never wrote; leave the kernel as the admin has it. But if
         * we did write before dry run was turned on, undo our doing. */
        if (m->dry_run && !m->wrote_kernel)
                return 0;

        (void) backend_read(m->root, m->backend, &now, NULL);
        if (now == to) {
                log_info("Leaving NUMA statistics in %s (exit_mode=%s).", kernel_mode_to_string(to),
                         exit_mode_to_string(m->config.exit_mode));
                return 0;
        }
        r = manager_write_mode(m, to, "daemon stopping");
        if (r < 0)
                return r;
        log_info("Restored NUMA statistics to %s on exit (exit_mode=%s, was %s).",
                 kernel_mode_to_string(to), exit_mode_to_string(m->config.exit_mode),
                 kernel_mode_to_string(now));
        return 0;
}

static int mkdir_parents(const char *path, mode_t mode) {
        _cleanup_free_ char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        return 0;
}

static int manager_listen(Manager *m) {
        const char *path = m->socket_override ? m->socket_override : m->config.socket;
        char **names = NULL;
        int n, r;

        /* Socket activation: systemd hands us the socket named "varlink". */
        n = sd_listen_fds_with_names(true, &names);
        if (n < 0)
                return log_error_errno(n, "Cannot take sockets from systemd: %m");
        for (int i = 0; i < n; i++) {
                int fd = SD_LISTEN_FDS_START + i;
                if (n == 1 || streq_ptr(names[i], "varlink")) {
                        r = varlink_server_listen_fd(m->varlink, fd);
                        if (r < 0)
                                log_error_errno(r, "Cannot listen on the socket systemd passed: %m");
                        for (int j = 0; j < n; j++)
                                free(names[j]);
                        free(names);
                        if (r < 0)
                                return r;
                        log_debug("Listening on the varlink socket passed by systemd.");
                        return 0;
                }
        }
        for (int j = 0; j < n; j++)
                free(names[j]);
        free(names);

        r = mkdir_parents(path, 0755);
        if (r < 0)
                return log_error_errno(r, "Cannot create the directory of %s: %m", path);
        /* Anyone may read the status; changing it is checked per call. */
        r = varlink_server_listen_address(m->varlink, path, 0666);
        if (r < 0)
                return log_error_errno(r, "Cannot listen on %s: %m", path);
        m->bound_socket = strdup(path);
        if (!m->bound_socket)
                return log_oom();
        log_debug("Listening on %s.", path);
        return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        if (si->ssi_signo == SIGHUP) {
                (void) manager_reload(m, NULL);
                return 0;
        }
        log_info("Received SIG%s, stopping.", sigabbrev_np(si->ssi_signo));
        (void) sd_notify(false, "STOPPING=1");
        return sd_event_exit(m->event, 0);
}

int manager_start(Manager *m) {
        _cleanup_free_ char *error = NULL;
        sigset_t mask;
        int r;

        r = backend_detect(m->root, &m->backend);
        if (r < 0)
                return log_error_errno(r, "Cannot probe the kernel's NUMA statistics interface under %s: %m",
                                       m->root);
        if (m->backend == BACKEND_NONE)
                log_notice("No NUMA statistics interface under %s/proc/sys/vm: observing only.",
                           strcmp(m->root, "/") == 0 ? "" : m->root);
        else {
                r = backend_read(m->root, m->backend, &m->initial_mode, &error);
                if (r < 0) {
                        log_warning_errno(r, "%s", error);
                        manager_set_error(m, r, &error);
                }
                m->kernel_mode = m->initial_mode;
                log_info("Kernel interface %s, mode %s.", backend_sysctl_path(m->backend),
                         kernel_mode_to_string(m->initial_mode));
        }

        r = topology_load(m->root, &m->topology);
        if (r < 0)
                log_warning_errno(r, "Cannot read the NUMA topology, showing no nodes: %m");

        r = service_setup(m);
        if (r < 0)
                return r;
        r = manager_listen(m);
        if (r < 0)
                return r;

        static const int signals[] = { SIGTERM, SIGINT, SIGHUP };
        sigemptyset(&mask);
        for (size_t i = 0; i < ELEMENTSOF(signals); i++)
                sigaddset(&mask, signals[i]);
        /* sd-event's signal sources need the signals blocked. */
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return log_error_errno(errno, "Cannot block signals: %m");
        for (size_t i = 0; i < ELEMENTSOF(signals); i++) {
                r = sd_event_add_signal(m->event, NULL, signals[i], on_signal, m);
                if (r < 0)
                        return log_error_errno(r, "Cannot watch SIG%s: %m", sigabbrev_np(signals[i]));
        }
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                log_warning_errno(r, "Cannot enable the watchdog: %m");
        return 0;
}

int manager_run(Manager *m) {
        int r;

        /* A failed first write is in status; the daemon serves anyway. */
        (void) manager_apply(m);
        (void) sd_notify(false, "READY=1");

        r = sd_event_loop(m->event);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");

        r = manager_restore(m);
        varlink_server_shutdown(m->varlink);
        return r;
}
