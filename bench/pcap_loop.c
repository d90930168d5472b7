// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pcap_loop FILE: the floor of reading a capture: pcap_next_ex and nothing else. */
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const unsigned char *d;
	unsigned long long n = 0, bytes = 0;
	pcap_t *p;

	if (argc != 2) {
		fprintf(stderr, "usage: pcap_loop FILE\n");
		return 2;
	}
	p = pcap_open_offline(argv[1], err);
	if (!p) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	while (pcap_next_ex(p, &h, &d) == 1) {
		n++;
		bytes += h->len;
	}
	pcap_close(p);
	printf("%llu packets %llu bytes\n", n, bytes);
	return 0;
}
