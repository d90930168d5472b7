// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What the generator's parts share: growing a table, writing a tally file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

void *gen_append(void **arr, size_t *n, size_t *cap, size_t size)
{
	char *p;

	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		void *na = realloc(*arr, ncap * size);

		if (!na)
			return NULL;
		*arr = na;
		*cap = ncap;
	}
	p = (char *)*arr + (*n)++ * size;
	memset(p, 0, size);
	return p;
}

FILE *gen_tally_open(char *path, size_t len, const char *dir, const char *name, const char *head)
{
	FILE *fp;

	snprintf(path, len, "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp) {
		fprintf(stderr, "rocetop-gen: cannot write %s: %s.\n", path, strerror(errno));
		return NULL;
	}
	if (head)
		fputs(head, fp);
	return fp;
}

int gen_tally_close(FILE *fp, const char *path)
{
	if (fclose(fp) == 0)
		return 0;
	fprintf(stderr, "rocetop-gen: cannot write %s: %s.\n", path, strerror(errno));
	return -1;
}
