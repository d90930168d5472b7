// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --job-of PID: the job each process would carry in the outputs, as the run
 * reads it (user/nic/jobs.h), one line per pid: text, or JSON lines with
 * --json (keys: pid, kind, job, step, rank, size, local_rank, cgroup, label).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "fmt.h"
#include "jobs.h"
#include "log.h"
#include "print.h"

static void print_json(__u32 pid, const struct rt_job *j)
{
	static const char *const keys[] = { "kind", "job", "step", "cgroup" };
	char label[RT_JOB_NAME_LEN + RT_JOB_STEP_LEN + 16];

	printf("{\"pid\":%u", pid);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		printf(",\"%s\":", keys[i]);
		rt_pr_json_string(stdout, rt_job_field(j, keys[i]));
	}
	printf(",\"rank\":%d,\"size\":%d,\"local_rank\":%d,\"label\":", j->rank, j->size, j->local_rank);
	rt_pr_json_string(stdout, rt_job_label(j, label, sizeof(label)));
	printf("}\n");
}

static void print_text(__u32 pid, const struct rt_job *j)
{
	char a[RT_JOB_NAME_LEN * 2], b[RT_JOB_STEP_LEN * 2], c[RT_JOB_CGROUP_LEN * 2];

	printf("%u\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", pid, rt_job_kind_name(j->kind),
	       rt_fmt_safe(j->job, a, sizeof(a)), rt_fmt_safe(j->step, b, sizeof(b)), j->rank, j->size,
	       j->local_rank, rt_fmt_safe(j->cgroup, c, sizeof(c)));
}

const char *rt_jobs_proc(const struct rt_opts *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s/proc", o->sysfs_root && *o->sysfs_root ? o->sysfs_root : "");
	return buf;
}

int rt_job_of(const struct rt_opts *o)
{
	char proc[PATH_MAX];
	struct rt_jobs *J = rt_jobs_new(o->pods_dir, rt_jobs_proc(o, proc, sizeof(proc)));
	int bad = 0;

	if (!J)
		return 1;
	if (!o->json)
		printf("PID\tKIND\tJOB\tSTEP\tRANK\tSIZE\tLOCAL\tCGROUP\n");
	for (int i = 0; i < o->njob_of; i++) {
		struct rt_job j;
		int r = rt_jobs_get(J, o->job_of[i], &j);

		if (r < 0) {
			if (r == -ESRCH || r == -ENOENT)
				pr_warn("process %u: no such process.\n", o->job_of[i]);
			else
				pr_warn("process %u: its cgroup cannot be read: %s.\n", o->job_of[i],
					r == -EINVAL ? "it is not a regular file" : strerror(-r));
			bad = 1;
			continue;
		}
		if (o->json)
			print_json(o->job_of[i], &j);
		else
			print_text(o->job_of[i], &j);
	}
	rt_jobs_free(J);
	fflush(stdout);
	return bad;
}
