// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which rocetop runs: `make install` puts one in /usr/local/bin, the Debian
 * package one in /usr/bin, and whichever comes first on PATH shadows the
 * other without a word. rocetop doctor says which binary it is and where
 * the others are (user/cmd/doctor.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "which_bin.h"

int rt_which_binary(struct rt_which *w)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX], cand[PATH_MAX + 16], real[PATH_MAX];
	ssize_t n;

	memset(w, 0, sizeof(*w));
	n = readlink("/proc/self/exe", w->self, sizeof(w->self) - 1);
	if (n <= 0)
		return -1;
	w->self[n] = 0;
	w->first = -1;
	while (path && *path && w->n < RT_WHICH_MAX) {
		size_t len = strcspn(path, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)len, len ? path : ".");
		path += len + (path[len] == ':');
		snprintf(cand, sizeof(cand), "%s/rocetop", dir);
		if (access(cand, X_OK) || !realpath(cand, real))
			continue;
		for (size_t i = 0; i < w->n; i++)
			if (!strcmp(w->path[i], real))
				goto next;
		snprintf(w->path[w->n], sizeof(w->path[0]), "%s", real);
		if (w->first < 0)
			w->first = (int)w->n;
		if (!strcmp(real, w->self))
			w->self_at = (int)w->n + 1;
		w->n++;
next:;
	}
	return 0;
}

void rt_which_print(FILE *out, const struct rt_which *w)
{
	fprintf(out, "binary:                 %s%s\n", w->self,
		w->self_at == 1 ? " (what `rocetop` runs from PATH)" : "");
	for (size_t i = 0; i < w->n; i++) {
		if ((int)i + 1 == w->self_at)
			continue;
		if ((int)i == w->first)
			fprintf(out, "warning: `rocetop` from PATH runs %s, not this binary; make install (/usr/local) and the package (/usr) shadow each other: remove one (make uninstall, or apt remove rocetop).\n",
				w->path[i]);
		else
			fprintf(out, "warning: another rocetop is %s, later on PATH than this one, which shadows it; make install (/usr/local) and the package (/usr) shadow each other: remove one (make uninstall, or apt remove rocetop).\n",
				w->path[i]);
	}
}
