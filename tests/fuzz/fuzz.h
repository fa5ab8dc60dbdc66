/* fuzz: what every fuzz target shares.
 *
 * The Makefile links each target with every library source but not contend.c, whose
 * command table cli/help.c refers to; an empty table stands in for it. Include this
 * header in exactly one file per target. */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"

const struct cmd commands[] = { { NULL, NULL, NULL, NULL } };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
