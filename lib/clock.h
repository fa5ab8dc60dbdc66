/* clock: nanosecond time units and clock readers shared by the stages (header only). */
#ifndef LIB_CLOCK_H
#define LIB_CLOCK_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#define NS_PER_S  INT64_C(1000000000)	/* nanoseconds per second */
#define NS_PER_MS INT64_C(1000000)	/* nanoseconds per millisecond */
#define NS_PER_US INT64_C(1000)	/* nanoseconds per microsecond */

/* A timespec or timeval as nanoseconds. */
static inline int64_t
clock_ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec;
}

static inline int64_t
clock_tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * NS_PER_S + (int64_t)tv->tv_usec * NS_PER_US;
}

/* Nanoseconds as a timespec (ns >= 0). */
static inline struct timespec
clock_ns_ts(int64_t ns)
{
	return (struct timespec){ (time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S) };
}

/* Clock id's time in nanoseconds; these clocks cannot fail on Linux. */
static inline int64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return clock_ts_ns(&ts);
}

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
static inline int64_t
clock_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline int64_t
clock_real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

/* The CLOCK_MONOTONIC time of the next multiple of period_ns (> 0) on CLOCK_REALTIME: a
 * grid every node of a cluster shares as far as their clocks agree (NTP: about a
 * millisecond), so that periodic work scheduled on it runs at the same moment everywhere. */
static inline int64_t
clock_grid_next_mono(int64_t period_ns)
{
	int64_t real = clock_real_ns(), mono = clock_mono_ns();

	return mono + (period_ns - real % period_ns);
}

/* CLOCK_MONOTONIC in seconds (for durations printed with --times). */
static inline double
clock_mono_s(void)
{
	return (double)clock_mono_ns() / NS_PER_S;
}

#endif
