// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * -r FILE: a rocetop recording or a pcap/pcapng capture, told apart by the
 * first bytes of the file, so the name does not matter. "-" reads standard
 * input; pipes and FIFOs are read as streams (no seeking back in the view).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "log.h"
#include "outfile.h"
#include "record.h"
#include "sources.h"

/* pcap (both byte orders, micro- and nanosecond) and pcapng section headers. */
static int is_capture(const unsigned char *m, ssize_t n)
{
	static const unsigned char magics[][4] = {
		{ 0xd4, 0xc3, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0xc3, 0xd4 },
		{ 0x4d, 0x3c, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0x3c, 0x4d },
		{ 0x0a, 0x0d, 0x0d, 0x0a },
	};
	size_t i;

	if (n < 4)
		return 0;
	for (i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (!memcmp(m, magics[i], 4))
			return 1;
	return 0;
}

struct rt_source *rt_file_source_new(const struct rt_file_cfg *c)
{
	const char *path = c->path;
	unsigned char m[RT_REC_MAGIC_LEN];
	struct stat st;
	ssize_t n = 0, k;
	int fd, stream;

	/* "-" is standard input, as tcpdump -r - reads it. */
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : fcntl(0, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		pr_warn("cannot open %s: %s.\n", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		pr_warn("%s is a directory, not a capture or a recording.\n", path);
		return NULL;
	}
	/* Outputs must never replace the file being read (outfile.c). */
	rt_protect_input(fd);
	/* A pipe or FIFO cannot be opened twice: the bytes read to tell the
	 * format are handed to the reader, which goes on reading the same fd. */
	stream = !S_ISREG(st.st_mode);
	while (n < (ssize_t)sizeof(m)) {
		k = read(fd, m + n, sizeof(m) - (size_t)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			pr_warn("cannot read %s: %s.\n", path, strerror(errno));
			close(fd);
			return NULL;
		}
		if (k == 0)
			break;
		n += k;
	}
	if (!stream)
		close(fd);
	if (n == 0) {
		pr_warn("%s is empty: it holds neither a capture nor a recording.\n", path);
		if (stream)
			close(fd);
		return NULL;
	}
	if (n == RT_REC_MAGIC_LEN && !memcmp(m, RT_REC_MAGIC, RT_REC_MAGIC_LEN))
		return rt_rec_source_new(c, stream ? fd : -1, m, (size_t)n);
	if (is_capture(m, n))
		return rt_pcap_source_new(c, stream ? fd : -1, m, (size_t)n);
	if (stream)
		close(fd);
	pr_warn("%s is neither a pcap/pcapng capture nor a rocetop recording (unknown first bytes).\n",
		path);
	return NULL;
}
