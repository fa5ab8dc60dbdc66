/* predict_cmd: `contend predict RUN --scenario FILE` as a command, for the commands that
 * run it (analyze). */
#ifndef PREDICT_PREDICT_CMD_H
#define PREDICT_PREDICT_CMD_H

#include "predict/stage.h"

/* predict_run(o) as `contend predict` does it: the notes, the headline, the run, each
 * model and where the TSV went on stdout; dies with the message on an error. Returns
 * predict_run's 0 or 1. */
int predict_cmd_run(const struct predict_opts *o);

#endif
