/* cli: option helpers for the command layer (the only code allowed to exit). */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"

/* When the element getopt just stopped at is a long option ("--name" or "--name=value",
 * possibly abbreviated) whose value is val, the length of its name; otherwise 0.
 * getopt_long reports such an option's error through optopt as if it were short. */
static int
long_name_len(const char *arg, const struct option *longopts, int val)
{
	size_t n;	/* length of the name as typed */

	if (arg == NULL || strncmp(arg, "--", 2) != 0 || longopts == NULL)
		return 0;
	n = strcspn(arg + 2, "=");
	for (const struct option *o = longopts; o->name != NULL; o++)
		if (o->val == val && n > 0 && strncmp(o->name, arg + 2, n) == 0)
			return n > 100 ? 100 : (int)n;
	return 0;
}

int
cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	   const char *usage)
{
	int c;
	char sopts[128];	/* ":" prefix so a missing argument is told apart */

	snprintf(sopts, sizeof sopts, ":%s", shortopts);
	opterr = 0;
	c = getopt_long(argc, argv, sopts, longopts, NULL);
	if (c == 'h') {
		fputs(usage, stdout);
		exit(0);
	}
	if (c == '?' || c == ':') {
		const char *last = optind > 0 && optind <= argc ? argv[optind - 1] : NULL;
		int n = optopt ? long_name_len(last, longopts, optopt) : 0;

		if (c == '?' && n > 0)	/* a known long option given a value it does not take */
			die_usage("%s: option '--%.*s' takes no value", argv[0], n, last + 2);
		if (c == '?' && optopt)
			die_usage("%s: unknown option '-%c' (see 'contend %s --help')", argv[0], optopt,
				  argv[0]);
		if (c == '?')
			die_usage("%s: unknown option '%s' (see 'contend %s --help')", argv[0],
				  last ? last : "?", argv[0]);
		if (n > 0)
			die_usage("%s: option '--%.*s' needs a value", argv[0], n, last + 2);
		if (optopt)
			die_usage("%s: option '-%c' needs a value", argv[0], optopt);
		die_usage("%s: option '%s' needs a value", argv[0], last ? last : "?");
	}
	return c;
}

int64_t
cli_i64(const char *arg, const char *opt, int64_t min, int64_t max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end != '\0')
		die_usage("option '%s': '%s' is not an integer", opt, arg);
	if (v < min || v > max)
		die_usage("option '%s': %lld is outside [%lld, %lld]", opt, v, (long long)min,
			  (long long)max);
	return v;
}

double
cli_f64(const char *arg, const char *opt, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end != '\0' || !isfinite(v))
		die_usage("option '%s': '%s' is not a number", opt, arg);
	if (v < min || v > max)
		die_usage("option '%s': %g is outside [%g, %g]", opt, v, min, max);
	return v;
}

int64_t
cli_duration_ns(const char *arg, const char *opt, int64_t default_unit_ns)
{
	char *end;
	double v;
	double unit = (double)default_unit_ns;	/* ns per unit */

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !isfinite(v) || v < 0)
		die_usage("option '%s': '%s' is not a duration", opt, arg);
	if (strcmp(end, "ns") == 0)
		unit = 1;
	else if (strcmp(end, "us") == 0)
		unit = 1e3;
	else if (strcmp(end, "ms") == 0)
		unit = 1e6;
	else if (strcmp(end, "s") == 0)
		unit = 1e9;
	else if (*end != '\0')
		die_usage("option '%s': unknown unit in '%s' (use ns, us, ms or s)", opt, arg);
	if (v * unit > 9e18)
		die_usage("option '%s': '%s' is too long", opt, arg);
	return (int64_t)llround(v * unit);
}

int64_t
cli_bytes(const char *arg, const char *opt)
{
	char *end;
	double v;
	double unit = 1;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !isfinite(v) || v < 0)
		die_usage("option '%s': '%s' is not a size", opt, arg);
	if (*end == 'k' || *end == 'K')
		unit = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		unit = 1024.0 * 1024, end++;
	else if (*end == 'g' || *end == 'G')
		unit = 1024.0 * 1024 * 1024, end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0')
		die_usage("option '%s': unknown unit in '%s' (use k, M or G)", opt, arg);
	if (v * unit > 9e18)
		die_usage("option '%s': '%s' is too large", opt, arg);
	return (int64_t)llround(v * unit);
}
