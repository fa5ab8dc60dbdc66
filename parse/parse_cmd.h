/* parse_cmd: `contend parse` as a command, for the commands that run it (analyze). */
#ifndef PARSE_PARSE_CMD_H
#define PARSE_PARSE_CMD_H

#include "parse/stage.h"

/* parse_run(o) as `contend parse` does it: dies with the message on an error; --times on
 * stderr; the summary on stdout after the per-rank table when o->table is set. Returns
 * parse_run's 0 or 1. */
int parse_cmd_run(const struct parse_opts *o);

#endif
