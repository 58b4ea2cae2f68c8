/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The INI dialect of numastatd.conf and of the known-readers catalogue,
 * parsed by inih one cleaned-up line at a time. Pure (reads a FILE the
 * caller opened). */

#include <stdbool.h>
#include <stdio.h>

/* Called per "key = value"; line is the file's line number. Returns 0, or
 * a negative errno with *reason (malloc'd) saying why: the error becomes
 * "PATH:LINE: REASON" and parsing stops. */
typedef int (*IniKeyHandler)(void *userdata, const char *section, const char *key, const char *value,
                             unsigned line, char **reason);
/* Called per "[section]" line. Returns 0, or a negative errno with *reason. */
typedef int (*IniSectionHandler)(void *userdata, const char *section, unsigned line, char **reason);

/* Parses f (named path in messages): '#' and ';' comments, also after
 * white space inside a line; no continuation lines; lines of at most 199
 * characters without comments; a NUL byte or a line that is neither a
 * section, a key nor a comment is an error. Returns 0, or a negative
 * errno with *ret_error = "PATH:LINE: why" (malloc'd) for the first error. */
int ini_file_parse(FILE *f, const char *path, IniSectionHandler on_section, IniKeyHandler on_key, void *userdata,
                   char **ret_error);
