/* dec: strict decimal integers from text, without the C library's locale and errno work.
 *
 * For readers of the project's own files that parse millions of fields: the same fields
 * tsv_r_i64 accepts, at a fraction of its cost. */
#ifndef LIB_DEC_H
#define LIB_DEC_H

#include <stdint.h>

/* The whole NUL-terminated string s as a signed 64-bit integer into *v: an optional '-'
 * then one or more ASCII digits, nothing else (no blanks, no '+'), within INT64_MIN ..
 * INT64_MAX. Returns 0, or -1 with *v untouched for anything else, an overflow included:
 * exactly the strings that strtoll(s, &end, 10) takes whole without ERANGE when s starts
 * with a digit or with '-' and a digit. */
int dec_i64(const char *s, int64_t *v);

#endif
