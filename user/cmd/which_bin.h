/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Which rocetop binary runs, and the others on PATH (user/cmd/which_bin.c). */
#ifndef RT_WHICH_BIN_H
#define RT_WHICH_BIN_H

#include <limits.h>
#include <stdio.h>

#define RT_WHICH_MAX 8

struct rt_which {
	char self[PATH_MAX];		/* /proc/self/exe */
	char path[RT_WHICH_MAX][PATH_MAX];	/* each rocetop on PATH, resolved, in PATH order */
	size_t n;
	int first;			/* index of what `rocetop` runs, -1 none */
	int self_at;			/* index + 1 of this binary among them, 0 not on PATH */
};

int rt_which_binary(struct rt_which *w);
void rt_which_print(FILE *out, const struct rt_which *w);

#endif
