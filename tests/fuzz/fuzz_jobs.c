// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: the jobs reader's parsers of /proc text (user/nic/jobs.h): each
 * input is read as /proc/PID/cgroup (rt_job_from_cgroup), as
 * /proc/PID/environ (rt_job_from_environ, NUL-separated) and as
 * /proc/PID/stat (rt_jobs_stat_start), each from a heap copy of exactly its
 * length (stat's with its NUL), so a read past the end is ASan's to see.
 * The job must come back with its strings ended and its ranks -1 or more.
 */
#include <stdlib.h>
#include <string.h>
#include "jobs.h"
#include "log.h"

static void check(const struct rt_job *j)
{
	if (!memchr(j->job, 0, sizeof(j->job)) || !memchr(j->step, 0, sizeof(j->step)) ||
	    !memchr(j->cgroup, 0, sizeof(j->cgroup)) || j->rank < -1 || j->size < -1 || j->local_rank < -1)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	rt_verbosity = -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *t = malloc(size ? size : 1), *z = malloc(size + 1);
	struct rt_job j;

	if (!t || !z)
		goto out;
	memcpy(t, data, size);
	rt_job_from_cgroup(t, size, &j);
	check(&j);
	rt_job_from_environ(t, size, &j);
	check(&j);
	memcpy(z, data, size);
	z[size] = 0;
	(void)rt_jobs_stat_start(z);
out:
	free(t);
	free(z);
	return 0;
}
