/* pcap_loop: the speed limit for reading a capture: a bare libpcap pcap_next_ex loop that
 * touches every packet's bytes and nothing else.
 *
 *	pcap_loop FILE     prints "packets N bytes N" */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>

int
main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t n = 0, bytes = 0, sum = 0;
	pcap_t *p;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: pcap_loop FILE\n");
		return 2;
	}
	p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (p == NULL) {
		fprintf(stderr, "pcap_loop: %s\n", errbuf);
		return 1;
	}
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		n++;
		bytes += h->caplen;
		sum += h->caplen > 40 ? d[40] : 0;	/* look at one header byte, as any reader must */
	}
	pcap_close(p);
	printf("packets %llu bytes %llu (%llu)\n", (unsigned long long)n, (unsigned long long)bytes,
	       (unsigned long long)(sum & 1));
	return rc == PCAP_ERROR ? 1 : 0;
}
