/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Enum <-> string through one table indexed by the enum value. Lookups are
 * exact and case-sensitive, as the config file, the varlink API and the
 * journal spell them. _from_string returns the value or -EINVAL. */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "macro.h"

static inline const char *string_table_lookup(const char *const *table, size_t n, int i) {
        if (i < 0 || (size_t) i >= n)
                return NULL;
        return table[i];
}

static inline int string_table_find(const char *const *table, size_t n, const char *s) {
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (table[i] && strcmp(table[i], s) == 0)
                        return (int) i;
        return -EINVAL;
}

/* Defines name_to_string() and name_from_string() over name_table[]. */
#define DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type)                                        \
        const char *name##_to_string(type i) {                                                  \
                return string_table_lookup(name##_table, ELEMENTSOF(name##_table), (int) i);    \
        }
#define DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, type)                                      \
        type name##_from_string(const char *s) {                                                \
                return (type) string_table_find(name##_table, ELEMENTSOF(name##_table), s);     \
        }
#define DEFINE_STRING_TABLE_LOOKUP(name, type)                                                  \
        DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type)                                        \
        DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, type)
