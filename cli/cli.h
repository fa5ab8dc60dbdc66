/* cli: the command table's types, the commands, and option helpers for the command layer. */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

/* One entry of the command table in contend.c. */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the command name; returns exit status */
	const char *summary;			/* one line for `contend help` */
	const char *usage;			/* full text for `contend help CMD` and `CMD --help` */
};

extern const struct cmd commands[];	/* NULL-name terminated, in contend.c */
const struct cmd *cmd_find(const char *name);

/* The commands, each in its own file. */
int cmd_collect(int argc, char **argv);
int cmd_parse(int argc, char **argv);
int cmd_infer(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_testbed(int argc, char **argv);
int cmd_trim(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_help(int argc, char **argv);
extern const char usage_collect[], usage_parse[], usage_infer[], usage_predict[],
	usage_report[], usage_analyze[], usage_export[], usage_testbed[], usage_trim[],
	usage_version[], usage_help[];

/* getopt_long for a command: returns the option as getopt does, -1 at the end.
 * Handles -h/--help (prints the usage, exits 0), an unknown option or a missing
 * argument (one line naming it, exits 2). Put "h" in shortopts and {"help",...,'h'} in longopts. */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       const char *usage);

/* Strict numbers from option arguments; exit 2 naming the option when malformed or out of range. */
int64_t cli_i64(const char *arg, const char *opt, int64_t min, int64_t max);
double cli_f64(const char *arg, const char *opt, double min, double max);
/* A duration such as "20ms", "1.5s", "500us", "100ns" (bare number: default_unit_ns). */
int64_t cli_duration_ns(const char *arg, const char *opt, int64_t default_unit_ns);
/* A size such as "64k", "4M", "262144". */
int64_t cli_bytes(const char *arg, const char *opt);

#endif
