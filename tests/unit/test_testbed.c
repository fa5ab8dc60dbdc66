/* test_testbed: the testbed's pure parts: rates, names, the default layout, workstation lookup, process identity. */
#include <unistd.h>

#include "check.h"
#include "testbed/tb_net.h"
#include "testbed/tb_state.h"
#include "testbed/tb_sys.h"

TEST(rates)
{
	int64_t bps = -1;
	struct err e = { .code = 0 };

	if (CHECKED(tb_parse_rate("100mbit", &bps, &e) == 0))
		CHECK(bps == 100000000);
	if (CHECKED(tb_parse_rate("1.5gbit", &bps, &e) == 0))
		CHECK(bps == 1500000000);
	if (CHECKED(tb_parse_rate("512kbit", &bps, &e) == 0))
		CHECK(bps == 512000);
	if (CHECKED(tb_parse_rate("10mbps", &bps, &e) == 0))
		CHECK(bps == 80000000);
	if (CHECKED(tb_parse_rate("2000000", &bps, &e) == 0))
		CHECK(bps == 2000000);
	if (CHECKED(tb_parse_rate("off", &bps, &e) == 0))
		CHECK(bps == 0);
	if (CHECKED(tb_parse_rate("0", &bps, &e) == 0))
		CHECK(bps == 0);
	CHECK(tb_parse_rate("100furlongs", &bps, &e) == -E_USAGE);
	CHECK(strstr(e.msg, "100furlongs") != NULL);
	CHECK(tb_parse_rate("-5mbit", &bps, &e) == -E_USAGE);
	CHECK(tb_parse_rate("100bit", &bps, &e) == -E_USAGE);	/* below 8 kbit/s */
	CHECK(tb_parse_rate("", &bps, &e) == -E_USAGE);
}

TEST(names_per_instance)
{
	char b[64];

	tb_name_ws(7, 2, b, sizeof b);
	CHECK_STR(b, "c7ws2");
	tb_name_ws(7, 0, b, sizeof b);
	CHECK_STR(b, "c7rt");
	tb_name_veth(12, 3, b, sizeof b);
	CHECK_STR(b, "c12v3");
	tb_name_bridge(0, 2, b, sizeof b);
	CHECK_STR(b, "c0br1");
	tb_addr(9, 2, 254, b, sizeof b);
	CHECK_STR(b, "10.109.2.254");
	tb_cgroup_dir(3, "cpuset", 2, b, sizeof b);
	CHECK_STR(b, "/sys/fs/cgroup/cpuset/contend-testbed-3/ws2");
	tb_state_path(4, "config.tsv", b, sizeof b);
	CHECK_STR(b, "/run/contend-testbed/4/config.tsv");
	/* interface names must fit IFNAMSIZ (15 characters) for the largest values */
	tb_name_veth(TB_MAX_INSTANCE, TB_MAX_WS, b, sizeof b);
	CHECK(strlen(b) <= 15);
	tb_name_uplink(TB_MAX_INSTANCE, 2, b, sizeof b);
	CHECK(strlen(b) <= 15);
}

TEST(default_layout)
{
	struct tb_conf c;

	tb_conf_default(&c, 0, 3, false, 2);
	CHECK_STR(c.ws[1].cpus, "0");
	CHECK_STR(c.ws[2].cpus, "1");
	CHECK_STR(c.ws[3].cpus, "0");
	CHECK(c.ws[1].cpu_pct == 50);
	CHECK(c.ws[2].cpu_pct == 50);
	CHECK(c.ws[3].cpu_pct == 50);
	CHECK(c.ws[3].subnet == 1);
	CHECK(c.ws[3].rate_bps == 0);
	tb_conf_default(&c, 0, 2, false, 2);
	CHECK(c.ws[1].cpu_pct == 100);
	CHECK(c.ws[2].cpu_pct == 100);
	tb_conf_default(&c, 1, 5, true, 2);
	CHECK(c.ws[3].subnet == 1);
	CHECK(c.ws[4].subnet == 2);
	CHECK(c.ws[5].subnet == 2);
	CHECK(c.ws[5].cpu_pct == 33);
}

TEST(find_workstation)
{
	struct tb_conf c;

	tb_conf_default(&c, 4, 4, true, 2);
	CHECK(tb_conf_find(&c, "c4ws3") == 3);
	CHECK(tb_conf_find(&c, "ws2") == 2);
	CHECK(tb_conf_find(&c, "4") == 4);
	CHECK(tb_conf_find(&c, "10.104.2.4") == 4);
	CHECK(tb_conf_find(&c, "10.104.1.4") == -1);	/* ws4 is on subnet 2 */
	CHECK(tb_conf_find(&c, "c5ws1") == -1);		/* another instance */
	CHECK(tb_conf_find(&c, "ws5") == -1);
	CHECK(tb_conf_find(&c, "ws0") == -1);
	CHECK(tb_conf_find(&c, "ws1x") == -1);
	CHECK(tb_conf_find(&c, "") == -1);
}

TEST(process_identity)
{
	uint64_t t = 0;

	if (CHECKED(tb_proc_start(getpid(), &t) == 0))
		CHECK(t > 0);
	CHECK(tb_proc_is(getpid(), t));
	CHECK(!tb_proc_is(getpid(), t + 1));	/* a reused pid has another start time */
	CHECK(tb_proc_start(0, &t) == -1);
	CHECK(tb_proc_stop(getpid(), t + 1, 10) == 0);	/* never signals a stranger */
}

TEST(run_collects_stderr)
{
	struct err e = { .code = 0 };
	char out[64];

	CHECK(tb_run((const char *[]){ "sh", "-c", "exit 0", NULL }, &e) == 0);
	CHECK(tb_run((const char *[]){ "sh", "-c", "echo oops >&2; exit 3", NULL }, &e) == -E_IO);
	CHECK(strstr(e.msg, "oops") != NULL);
	CHECK(strstr(e.msg, "exit 3") != NULL);
	CHECK(tb_run((const char *[]){ "no-such-program-here", NULL }, &e) == -E_IO);
	CHECK(strstr(e.msg, "cannot run") != NULL);
	CHECK(tb_run_out((const char *[]){ "sh", "-c", "echo hello", NULL }, out, sizeof out, &e) == 0);
	CHECK_STR(out, "hello\n");
}

int
main(void)
{
	RUN(rates);
	RUN(names_per_instance);
	RUN(default_layout);
	RUN(find_workstation);
	RUN(process_identity);
	RUN(run_collects_stderr);
	return check_done();
}
