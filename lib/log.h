/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <syslog.h>

#include "macro.h"

/* Logging to stderr. Under systemd (JOURNAL_STREAM set) lines carry the
 * "<N>" priority prefix sd-daemon(3) describes, so the journal keeps levels. */
void log_set_max_level(int level);
int log_get_max_level(void);
/* "emerg".."debug" or 0..7; returns the level or -EINVAL. */
int log_level_from_string(const char *s);
void log_set_ident(const char *ident);

/* Returns -abs(error) so call sites can `return log_error_errno(r, ...)`. */
int log_internal(int level, int error, const char *fmt, ...) _printf_(3, 4);

#define log_full_errno(level, error, ...)                                      \
        ({                                                                     \
                int _l_ = (level), _e_ = (error);                              \
                (log_get_max_level() >= _l_) ? log_internal(_l_, _e_, __VA_ARGS__) \
                                              : -abs(_e_);                      \
        })

#define log_debug(...) log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, e, __VA_ARGS__)
#define log_info_errno(e, ...) log_full_errno(LOG_INFO, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, e, __VA_ARGS__)
#define log_oom() log_error_errno(ENOMEM, "Out of memory.")

/* A structured entry: under systemd it goes to the journal with the given
 * fields ("KEY=value" strings, NULL-terminated list), so
 * `journalctl MESSAGE_ID=…` finds it; elsewhere the message is printed like
 * any log line and the fields are dropped. */
void log_struct(int level, const char *message_id, const char *message, const char *const *fields);
