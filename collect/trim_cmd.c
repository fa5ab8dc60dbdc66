/* trim_cmd: `contend trim`, a full capture cut down to what parse reads. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "collect/capture.h"
#include "lib/err.h"

const char usage_trim[] =
	"usage: contend trim [--force] IN OUT\n"
	"\n"
	"Writes to OUT what 'contend collect --payload framed' would have kept of the capture\n"
	"IN (pcap or pcapng, plain or gzip, from collect --payload full, tcpdump or\n"
	"Wireshark): every packet, cut after its headers and the MPI headers parse reads\n"
	"(Open MPI ob1 over TCP, MPICH ch4:ucx over TCP), so that 'contend parse' rebuilds the\n"
	"same messages from OUT as from IN. Streams of other protocols keep their first 256\n"
	"bytes; where the framing is not known, packets stay whole. OUT ending in .gz is\n"
	"written gzip-compressed. A damaged IN has its packets before the damage written and\n"
	"the damage reported (exit 1).\n"
	"\n"
	"options:\n"
	"      --force     replace OUT if it exists\n"
	"  -h, --help      this text\n"
	"\n"
	"example:\n"
	"  contend trim run1/capture/node1.pcap.gz node1-framed.pcap.gz\n";

int
cmd_trim(int argc, char **argv)
{
	enum { OPT_FORCE = 256 };
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct framecut_stats st;
	struct err e;
	bool force = false, gz;
	const char *in, *out;
	size_t n;
	int c, rc;

	while ((c = cli_getopt(argc, argv, "h", longopts, usage_trim)) != -1)
		if (c == OPT_FORCE)
			force = true;
	if (argc - optind != 2)
		die_usage("trim: give IN and OUT (see 'contend trim --help')");
	in = argv[optind];
	out = argv[optind + 1];
	n = strlen(out);
	gz = n > 3 && strcmp(out + n - 3, ".gz") == 0;
	rc = capture_trim(in, out, gz, force, &st, &e);
	if (rc < 0 && st.packets == 0) {
		fprintf(stderr, "contend: trim: %s\n", e.msg);
		return rc == -E_USAGE ? 2 : 1;
	}
	printf("%s: %" PRIu64 " packets, %" PRIu64 " bytes -> %" PRIu64 " bytes (%.1f %%), %"
	       PRIu64 " cut\n", out, st.packets, st.bytes_in, st.bytes_kept,
	       st.bytes_in ? 100.0 * (double)st.bytes_kept / (double)st.bytes_in : 0.0, st.cut);
	printf("streams: ompi %" PRIu64 ", mpich %" PRIu64 ", other %" PRIu64 ", unknown %" PRIu64
	       "; framing lost %" PRIu64 ", found %" PRIu64 ", given up %" PRIu64
	       ", kept whole while lost %" PRIu64 " bytes\n", st.dirs[WIRE_OMPI],
	       st.dirs[WIRE_MPICH], st.dirs[WIRE_OTHER], st.dirs[WIRE_UNKNOWN], st.wire.lost,
	       st.wire.found, st.wire.gave_up, st.wire.lost_bytes);
	fflush(stdout);
	if (rc < 0) {
		fprintf(stderr, "contend: trim: %s\n", e.msg);
		return rc == -E_USAGE ? 2 : 1;
	}
	return 0;
}
