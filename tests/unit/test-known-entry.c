/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The catalogue's entry format (known-entry.c): an entry parses into its
 * reader, executables and file sections, each with its line; what is
 * wrong is refused, naming FILE:LINE and why. */

#include <stdlib.h>

#include "known-parse.h"
#include "known.h"
#include "macro.h"
#include "strutil.h"
#include "tap.h"

static void test_parse(void) {
        _cleanup_free_ char *error = NULL;
        KnownReader k = {};

        ok(parse("[reader]\ndescription = a\ndescription = b\nexe = /usr/bin/x\nexe = /bin/x\n"
                     "evidence = src/x.c\n[file /proc/vmstat]\nwhy = no numa\narg = --fields\n"
                     "arg_default = ^pg.*\narg_syntax = re2\narg_files = yes\n[file /sys/devices/system/node/node*/numastat]\nwhy = off in x.conf\n"
                     "config = /etc/x.conf\nconfig_arg = -c\nconfig_section = s\nconfig_key = numa metrics\n"
                     "config_value = no\noverride_args = -W --set\n", &k, &error) == 0, "an entry parses (%s)", strnull(error));
        ok(streq_ptr(k.files[0].arg_syntax, "re2") && k.files[0].arg_files && !k.files[1].arg_files,
           "  arg_syntax, arg_files");
        is_str(k.files[1].override_args, "-W --set", "  override_args");
        is_str(k.name, "e", "  named after its file");
        is_str(k.description, "a b", "  a repeated prose key adds to the text");
        is_int((int) k.n_exes, 2, "  two executables");
        is_int((int) k.exes[1].line, 5, "  each with its line");
        is_int((int) k.n_files, 2, "  two file sections");
        is_int((int) k.files[0].line, 7, "  the first at line 7");
        ok(known_reader_file(&k, "/proc/vmstat") == &k.files[0], "/proc/vmstat is the first section's");
        ok(known_reader_file(&k, "/sys/devices/system/node/node12/numastat") == &k.files[1], "  node12 the glob's");
        ok(!known_reader_file(&k, "/proc/zoneinfo"), "  /proc/zoneinfo nobody's");
        known_reader_done(&k);

        parse_fails("an unknown key", "[reader]\nexe = /x\nbogus = 1\n", "/x/e.conf:3: [reader] bogus: unknown key");
        parse_fails("an unknown section", "[reader]\nexe = /x\n[files /proc/vmstat]\n", "/x/e.conf:3: [files /proc/vmstat]: unknown section");
        parse_fails("no exe", "[reader]\ndescription = x\n", "no exe= or script=");
        parse_fails("a relative exe", "[reader]\nexe = x\n", "/x/e.conf:2: [reader] exe: 'x' is not an absolute path");
        parse_fails("a file section without why", "[reader]\nexe = /x\n[file /proc/vmstat]\narg = --a\n",
                    "/x/e.conf:3: [file /proc/vmstat]: no why=");
        parse_fails("a relative file", "[reader]\nexe = /x\n[file proc/vmstat]\n", "is not an absolute path (glob)");
        parse_fails("arg without its syntax", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\narg = --a\n",
                    "/x/e.conf:3: [file /proc/vmstat]: arg= needs arg_syntax= (re2 or posix-ere: whose regex it is)");
        parse_fails("an unknown syntax", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\narg = --a\narg_syntax = pcre\n",
                    "arg_syntax= 'pcre' is not re2 or posix-ere");
        parse_fails("arg_files without arg", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\narg_files = yes\n",
                    "without arg=");
        parse_fails("a default that exports numa_*", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\narg = --a\n"
                    "arg_syntax = re2\narg_default = numa\n", "matches a numa_* name or does not compile");
        parse_fails("a default that does not compile", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\narg = --a\n"
                    "arg_syntax = posix-ere\narg_default = (\n", "does not compile");
        parse_fails("config without its keys", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig = /etc/x\n",
                    "go together");
        parse_fails("why twice", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nwhy = v\n", "why: set twice");
        ok(parse("[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig = /etc/x.conf\nconfig_forbids = numa\n"
                 "config_dir = /etc/x.d\nconfig_dir_recursive = yes\nconfig_dir_hidden = true\nconfig_environment = 1\n",
                 &k, &error) == 0 &&
           k.files[0].config_dir_recursive && k.files[0].config_dir_hidden && k.files[0].config_environment,
           "config_dir_recursive, config_dir_hidden and config_environment parse (%s)", strnull(error));
        known_reader_done(&k);
        ok(parse("[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig = /etc/x.conf\nconfig_forbids = numa\n"
                 "config_dir = /etc/x.d\n", &k, &error) == 0 &&
           !k.files[0].config_dir_recursive && !k.files[0].config_dir_hidden && !k.files[0].config_environment,
           "  each off by default");
        known_reader_done(&k);
        parse_fails("config_dir_recursive without config_dir", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config = /etc/x.conf\nconfig_forbids = numa\nconfig_dir_recursive = yes\n",
                    "need config_dir= or config_dir_arg=");
        parse_fails("config_environment without config_forbids", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config_environment = yes\n", "need config_forbids=");
        ok(parse("[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig_dir = /etc/x\nconfig_dir_names = a.cfg .b.cfg\n"
                 "config_forbids = numa\n", &k, &error) == 0 && streq_ptr(k.files[0].config_dir_names, "a.cfg .b.cfg") &&
           !k.files[0].config,
           "config_dir with config_dir_names and config_forbids, no config= (%s)", strnull(error));
        known_reader_done(&k);
        parse_fails("config_dir_names with a path", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config_dir = /etc/x\nconfig_dir_names = a/b.cfg\nconfig_forbids = numa\n", "is not a list of file names");
        parse_fails("config_dir_names without config_dir", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config = /etc/x\nconfig_dir_names = a.cfg\nconfig_forbids = numa\n", "need config_dir=");
        parse_fails("config_arg without config", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config_dir = /etc/x\nconfig_arg = -c\nconfig_forbids = numa\n", "need config=");
        ok(parse("[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig = /etc/x.yaml\nconfig_dir_arg = -C\n"
                 "config_dir_suffixes = .yaml .yml\nconfig_dir_follow = yes\nconfig_forbids = numa\n",
                 &k, &error) == 0 &&
                   streq_ptr(k.files[0].config_dir_suffixes, ".yaml .yml") && k.files[0].config_dir_follow &&
                   !k.files[0].config_dir,
           "config_dir_arg with config_dir_suffixes and config_dir_follow, no config_dir= (%s)", strnull(error));
        known_reader_done(&k);
        parse_fails("config_dir_suffixes not starting with a dot", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config_dir = /etc/x\nconfig_dir_suffixes = .yaml yml\nconfig_forbids = numa\n",
                    "is not a list of suffixes");
        parse_fails("config_dir_suffixes a lone dot", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config_dir = /etc/x\nconfig_dir_suffixes = .\nconfig_forbids = numa\n", "is not a list of suffixes");
        parse_fails("config_dir_suffixes with a slash", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config_dir = /etc/x\nconfig_dir_suffixes = .d/x\nconfig_forbids = numa\n",
                    "is not a list of suffixes");
        parse_fails("config_dir_suffixes and config_dir_names", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config_dir = /etc/x\nconfig_dir_suffixes = .yml\nconfig_dir_names = a.yml\nconfig_forbids = numa\n",
                    "not both");
        parse_fails("config_dir_follow without a directory", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config = /etc/x\nconfig_dir_follow = yes\nconfig_forbids = numa\n",
                    "need config_dir= or config_dir_arg=");
        ok(parse("[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig = /etc/x/x.yml\nconfig_dir = /etc/x\n"
                 "config_dir_arg = --path.config\nconfig_dir_arg_required = yes\nconfig_dir_glob = modules.d/*.yml\n"
                 "config_forbids = numa\nconfig_allows = ^ok$\nconfig_allows = ^fine$\n",
                 &k, &error) == 0 &&
                   streq_ptr(k.files[0].config_dir_glob, "modules.d/*.yml") && k.files[0].config_dir_arg_required &&
                   streq_ptr(k.files[0].config_allows, "^ok$|^fine$"),
           "config_dir_glob, config_dir_arg_required and config_allows (repeated, joined) parse (%s)", strnull(error));
        known_reader_done(&k);
        ok(parse("[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig_dir = /etc/x\nconfig_dir_glob = [!.]*\n"
                 "config_forbids = numa\n", &k, &error) == 0,
           "  a glob without a directory part (%s)", strnull(error));
        known_reader_done(&k);
        static const char *bad_globs[] = { "/etc/x/*.yml", "mod*/x.yml", "../x/*.yml", "a//*.yml", "./*.yml",
                                           "a/./*.yml", "modules.d/", "" };
        for (size_t i = 0; i < ELEMENTSOF(bad_globs); i++) {
                _cleanup_free_ char *text = NULL;

                if (asprintf(&text, "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig_dir = /etc/x\n"
                                    "config_dir_glob = %s\nconfig_forbids = numa\n", bad_globs[i]) < 0)
                        abort();
                parse_fails(bad_globs[i], text, "is not a relative path with a glob in its last component only");
        }
        parse_fails("config_dir_glob with config_dir_suffixes", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config_dir = /etc/x\nconfig_dir_glob = *.yml\nconfig_dir_suffixes = .yml\nconfig_forbids = numa\n",
                    "names the files in place of");
        parse_fails("config_dir_glob without a directory", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config = /etc/x\nconfig_dir_glob = *.yml\nconfig_forbids = numa\n", "config_dir_glob= needs");
        parse_fails("config_dir_arg_required without config_dir_arg", "[reader]\nexe = /x\n[file /proc/vmstat]\n"
                    "why = w\nconfig_dir = /etc/x\nconfig_dir_arg_required = yes\nconfig_forbids = numa\n",
                    "config_dir_arg_required= needs config_dir_arg=");
        parse_fails("config_allows without config_forbids", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config = /etc/x\nconfig_section = a\nconfig_key = b\nconfig_value = c\nconfig_allows = x\n",
                    "config_allows= needs config_forbids=");
        parse_fails("config_allows that does not compile", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config = /etc/x\nconfig_forbids = a\nconfig_allows = (\n", "does not compile");
        ok(parse("[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig_dir = /etc/x\nconfig_dir_holds = -config -c\n"
                 "config_forbids = numa\n", &k, &error) == 0 &&
                   streq_ptr(k.files[0].config_dir_holds, "-config -c"),
           "config_dir_holds with config_dir (%s)", strnull(error));
        known_reader_done(&k);
        parse_fails("config_dir_holds without config_dir", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config = /etc/x\nconfig_dir_arg = -C\nconfig_dir_holds = -c\nconfig_forbids = numa\n",
                    "config_dir_holds= needs config_dir=");
        parse_fails("config_dir_hidden not a boolean", "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\n"
                    "config_dir_hidden = maybe\n", "config_dir_hidden: 'maybe' is not a boolean");
        parse_fails("a line too long", "[reader]\nexe = /x\nevidence = "
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
                    "/x/e.conf:3: evidence: line too long");
}

int main(void) {
        test_parse();
        return tap_done();
}
