/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* text with its variables replaced from environ_text ("NAME=value" lines),
 * more than a program would replace, so that a line that could become a
 * forbidden one after the program's own replacement does: "${NAME...}"
 * becomes NAME's values (each followed by a space) and the rest inside
 * the braces (a default, itself replaced), "$NAME" NAME's values, "$$" "$".
 * -E2BIG past CONFIG_VARS_EXPANDED_MAX bytes or 8 nested braces; -ENOMEM. */
#define CONFIG_VARS_EXPANDED_MAX (4 * 1024 * 1024)
int config_vars_expand(const char *text, const char *environ_text, char **ret);
