/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zswap-tuned: flips the zswap shrinker with memory pressure and pool fill.
 * See zswap-tuned(8).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit-code.h"
#include "log.h"
#include "manager.h"
#include "plot.h"
#include "publish.h"
#include "record.h"
#include "replay.h"
#include "restore.h"
#include "snapshot.h"
#include "status.h"
#include "util.h"
#include "version-git.h"

static bool arg_check_config;
static bool arg_restore;
static bool arg_json;
static bool arg_verify;
static bool arg_quiet;
static bool arg_lenient;
static const char *arg_output;

static void help(void) {
        printf("Usage: %s [OPTIONS]                       run the daemon\n"
               "       %s status [--json]                 what the running daemon is doing, and why\n"
               "       %s replay FILE [--config=FILE] [--verify] [--quiet] [--lenient]\n"
               "                                            run the policy over a recording\n"
               "       %s plot FILE -o OUT.png            draw a recording (needs gnuplot)\n"
               "Cap the zswap use of batch cgroups ([Batch] Cgroups=), and turn the zswap\n"
               "shrinker off while latency-sensitive work is under memory pressure and the\n"
               "pool has room; back to the administrator's value as the pool nears its limit\n"
               "(on there only with [Pool] ShrinkerNearLimit=yes).\n\n"
               "  -c, --config=FILE      configuration file (default %s/zswap-tuned.conf);\n"
               "                         drop-ins are read from FILE.d/*.conf\n"
               "      --check-config     check the configuration, print it and exit\n"
               "  -n, --dry-run          decide and log, but never write the knob\n"
               "      --restore          restore the knob saved in the state directory and exit\n"
               "      --root=DIR         look for /proc and /sys below DIR (for tests)\n"
               "      --state-dir=DIR    where the original knob value is kept\n"
               "                         (default $RUNTIME_DIRECTORY or /run/zswap-tuned)\n"
               "      --log-level=LEVEL  err, warning, notice, info or debug\n"
               "      --record=FILE      append every sample and decision to FILE\n"
               "      --json             status: one JSON object\n"
               "      --verify           replay: compare with the recorded decisions\n"
               "  -q, --quiet            replay: the summary only\n"
               "      --lenient          replay: skip refused lines (each said), count them\n"
               "  -o, --output=FILE      plot: the PNG to write\n"
               "  -h, --help             show this help\n"
               "  -V, --version          show the version\n\n"
               "Exit status: 0 success; 1 failure (replay --verify: a decision differs);\n"
               "2 usage error (replay: not a recording); 3 status: not running;\n"
               "4 status: the status file cannot be read; 69 no PSI in the kernel;\n"
               "75 another instance holds the state directory; 78 invalid configuration.\n\n"
               "See zswap-tuned(8) and zswap-tuned.conf(5).\n",
               program_invocation_short_name, program_invocation_short_name, program_invocation_short_name,
               program_invocation_short_name, SYSCONFDIR);
}

/* Returns -1 to go on, else an exit code. */
static int parse_argv(int argc, char *argv[], struct manager *m) {
        enum { ARG_CHECK_CONFIG = 0x100, ARG_RESTORE, ARG_ROOT, ARG_STATE_DIR, ARG_LOG_LEVEL, ARG_RECORD, ARG_JSON,
               ARG_VERIFY, ARG_LENIENT };
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
                { "dry-run", no_argument, NULL, 'n' },
                { "restore", no_argument, NULL, ARG_RESTORE },
                { "root", required_argument, NULL, ARG_ROOT },
                { "state-dir", required_argument, NULL, ARG_STATE_DIR },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                { "record", required_argument, NULL, ARG_RECORD },
                { "json", no_argument, NULL, ARG_JSON },
                { "verify", no_argument, NULL, ARG_VERIFY },
                { "quiet", no_argument, NULL, 'q' },
                { "lenient", no_argument, NULL, ARG_LENIENT },
                { "output", required_argument, NULL, 'o' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "c:nqo:hV", options, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        m->config_path = optarg;
                        m->config_given = true;
                        break;
                case ARG_RECORD:
                        m->record_path = optarg;
                        break;
                case ARG_JSON:
                        arg_json = true;
                        break;
                case ARG_VERIFY:
                        arg_verify = true;
                        break;
                case 'q':
                        arg_quiet = true;
                        break;
                case ARG_LENIENT:
                        arg_lenient = true;
                        break;
                case 'o':
                        arg_output = optarg;
                        break;
                case ARG_CHECK_CONFIG:
                        arg_check_config = true;
                        break;
                case 'n':
                        m->dry_run_override = true;
                        break;
                case ARG_RESTORE:
                        arg_restore = true;
                        break;
                case ARG_ROOT:
                        if (kernel_init(&m->kernel, optarg) < 0) {
                                log_error("--root: path too long");
                                return EXIT_USAGE;
                        }
                        break;
                case ARG_STATE_DIR:
                        if (strlen(optarg) >= sizeof(m->state_dir)) {
                                log_error("--state-dir: path too long");
                                return EXIT_USAGE;
                        }
                        strcpy(m->state_dir, optarg);
                        break;
                case ARG_LOG_LEVEL:
                        m->log_level_override = log_level_from_string(optarg);
                        if (m->log_level_override < 0) {
                                log_error("--log-level=%s: expected err, warning, notice, info or debug", optarg);
                                return EXIT_USAGE;
                        }
                        log_set_max_level(m->log_level_override);
                        break;
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case 'V':
                        /* ZT_GIT_COMMIT: "" from a tarball, " (git abc1234)" from a checkout */
                        printf("%s %s%s\n", PACKAGE_NAME, PACKAGE_VERSION, ZT_GIT_COMMIT);
                        return EXIT_SUCCESS;
                default:
                        return EXIT_USAGE;
                }
        }
        return -1;
}

/* "status", "replay FILE", "plot FILE": the commands besides the daemon. */
static int run_command(struct manager *m, int argc, char *argv[]) {
        const char *cmd = argv[0];
        struct replay_options o = { .verify = arg_verify, .quiet = arg_quiet, .lenient = arg_lenient };
        char err[CONF_ERRORS_MAX];
        struct conf c;
        int r;

        if (strcmp(cmd, "status") == 0 && argc == 1)
                return status_show(&m->kernel, m->state_dir, m->config_path, m->config_given, arg_json);
        if (strcmp(cmd, "plot") == 0 && argc == 2) {
                if (!arg_output) {
                        log_error("plot: -o/--output=FILE.png is needed");
                        return EXIT_USAGE;
                }
                return plot(argv[1], arg_output);
        }
        if (strcmp(cmd, "replay") == 0 && argc == 2) {
                /* the configuration to replay with: --config, or the built-in defaults */
                conf_defaults(&c);
                if (m->config_given && conf_load_given(&c, m->config_path, err, sizeof(err)) < 0) {
                        conf_log_errors(err);
                        return EXIT_CONFIG;
                }
                r = replay(argv[1], &c, &o, stdout);
                conf_free(&c);
                return r;
        }
        log_error("unexpected argument: %s (see --help)", cmd);
        return EXIT_USAGE;
}

/* For the daemon and --restore, before their first write: a write past the
 * file size limit (ulimit -f, the unit's LimitFSIZE=) then fails with EFBIG,
 * which each write path handles (the recording stops after its last whole
 * line, a save file that cannot be written changes nothing, the status and
 * metrics files are said once), instead of SIGXFSZ killing the daemon with
 * the knob and the caps as it set them. The commands and --check-config keep
 * the default: their output is the user's, and the signal says that it was
 * cut short. (sigaction() cannot fail here: a valid signal, not SIGKILL.) */
static void ignore_sigxfsz(void) {
        struct sigaction sa = { .sa_handler = SIG_IGN };

        (void) sigaction(SIGXFSZ, &sa, NULL);
}

/* Was --json given, even if the command line is wrong otherwise? */
static bool json_asked(int argc, char *argv[]) {
        for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
                if (strcmp(argv[i], "--json") == 0)
                        return true;
        return false;
}

int main(int argc, char *argv[]) {
        struct manager m;
        char err[CONF_ERRORS_MAX];
        int r;

        log_open();
        manager_init(&m);
        r = parse_argv(argc, argv, &m);
        if (r < 0 && optind < argc) {
                r = run_command(&m, argc - optind, argv + optind);
                manager_free(&m);
        }
        /* --json promises JSON on stdout whatever the exit status */
        if (r == EXIT_USAGE && json_asked(argc, argv))
                snapshot_json_not_running(STATUS_ERROR_USAGE, "invalid command line (see --help)", stdout);
        if (r >= 0)
                return r;

        if (arg_restore) {
                /* a killed instance's metrics would go on saying what it did:
                 * the configuration says where they are */
                if (manager_load_config(&m, err, sizeof(err)) < 0) {
                        log_notice("--restore: %.*s%s; not looking for a metrics file left behind",
                                   (int) strcspn(err, "\n"), err, strchr(err, '\n') ? " (and more errors)" : "");
                        m.conf.metrics_dir[0] = '\0';
                }
                ignore_sigxfsz();
                char *stopped = publish_metrics_stopped_text();
                r = restore_run_stopped(&m.kernel, m.state_dir, m.conf.metrics_dir, stopped);
                free(stopped);
                if (r == -EBUSY)
                        log_error("--restore: stop it instead; it restores everything on exit");
                manager_free(&m);
                return r == -EBUSY ? EXIT_RUNNING : r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        }

        r = manager_load_config(&m, err, sizeof(err));
        if (r < 0) {
                conf_log_errors(err);
                if (!arg_check_config)
                        log_error("Invalid configuration; not starting (the knob is untouched)");
                manager_free(&m);
                return EXIT_CONFIG;
        }
        if (arg_check_config) {
                /* what the daemon would refuse at run time, refused now */
                if (publish_check_metrics_dir(&m.conf, err, sizeof(err)) < 0) {
                        log_error("%s", err);
                        manager_free(&m);
                        return EXIT_CONFIG;
                }
                conf_dump(&m.conf, stdout);
                manager_free(&m);
                return EXIT_SUCCESS;
        }

        ignore_sigxfsz();
        r = manager_run(&m);
        manager_free(&m);
        return r;
}
