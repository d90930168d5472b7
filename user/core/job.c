// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Jobs: names and fields (job.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job.h"
#include "table.h"

static const char *const kind_names[RT_JOB__N] = { "", "slurm", "k8s", "unit", "cgroup" };

const char *rt_job_kind_name(unsigned kind)
{
	return kind < RT_JOB__N ? kind_names[kind] : "";
}

static const char *num(__s32 v)
{
	static __thread char buf[16];

	if (v < 0)
		return "";
	snprintf(buf, sizeof(buf), "%d", v);
	return buf;
}

static const char *kind_text(const struct rt_job *j, unsigned kind, const char *s)
{
	return j->kind == kind ? s : "";
}

const char *rt_job_field(const struct rt_job *j, const char *name)
{
	static const char *const known[] = {
		"job", "pod", "unit", "slurm", "step", "kind", "cgroup", "rank", "size", "local_rank",
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i]))
			break;
	if (i == sizeof(known) / sizeof(known[0]))
		return NULL;
	if (!j || j->kind == RT_JOB_NONE)
		return "";
	switch (i) {
	case 0: return j->job;
	case 1: return kind_text(j, RT_JOB_K8S, j->job);
	case 2: return kind_text(j, RT_JOB_UNIT, j->job);
	case 3: return kind_text(j, RT_JOB_SLURM, j->job);
	case 4: return j->step;
	case 5: return rt_job_kind_name(j->kind);
	case 6: return j->cgroup;
	case 7: return num(j->rank);
	case 8: return num(j->size);
	default: return num(j->local_rank);
	}
}

char *rt_job_label(const struct rt_job *j, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	if (!j || j->kind == RT_JOB_NONE || j->kind >= RT_JOB__N)
		return buf;
	if (j->kind == RT_JOB_SLURM && j->step[0])
		snprintf(buf, len, "slurm:%.*s.%.*s", RT_JOB_NAME_LEN, j->job, RT_JOB_STEP_LEN, j->step);
	else if (j->kind == RT_JOB_K8S && j->step[0])
		snprintf(buf, len, "k8s:%.*s/%.*s", RT_JOB_NAME_LEN, j->job, RT_JOB_STEP_LEN, j->step);
	else
		snprintf(buf, len, "%s:%.*s", rt_job_kind_name(j->kind), RT_JOB_NAME_LEN, j->job);
	return buf;
}

int rt_job_same(const struct rt_job *a, const struct rt_job *b)
{
	if (!a || !b)
		return a == b;
	return a->kind == b->kind && !strncmp(a->job, b->job, sizeof(a->job));
}

static const char *const group_names[RT_GROUP__N] = { "flow", "job", "pod", "unit", "process", "rank" };

const char *rt_group_name(int g)
{
	return g >= 0 && g < RT_GROUP__N ? group_names[g] : "";
}

int rt_group_parse(const char *s)
{
	for (int g = 0; g < RT_GROUP__N; g++)
		if (!strcmp(s, group_names[g]))
			return g;
	return -1;
}

char *rt_job_group_key(const struct rt_job *j, int group, __u32 pid, const char *comm, char *buf,
		       size_t len)
{
	int none = !j || j->kind == RT_JOB_NONE;

	switch (group) {
	case RT_GROUP_JOB:
		if (none)
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%s:%.*s", rt_job_kind_name(j->kind), RT_JOB_NAME_LEN, j->job);
		break;
	case RT_GROUP_POD:
	case RT_GROUP_UNIT:
		if (none || j->kind != (group == RT_GROUP_POD ? RT_JOB_K8S : RT_JOB_UNIT))
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%.*s", RT_JOB_NAME_LEN, j->job);
		break;
	case RT_GROUP_RANK:
		if (none)
			snprintf(buf, len, "-");
		else if (j->rank >= 0)
			snprintf(buf, len, "%s:%.*s#%d", rt_job_kind_name(j->kind), RT_JOB_NAME_LEN, j->job, j->rank);
		else
			snprintf(buf, len, "%s:%.*s#-", rt_job_kind_name(j->kind), RT_JOB_NAME_LEN, j->job);
		break;
	case RT_GROUP_PROCESS:
		if (pid)
			snprintf(buf, len, "%.16s/%u", comm, pid);
		else
			snprintf(buf, len, "-");
		break;
	default:
		snprintf(buf, len, "%s", "");
	}
	return buf;
}

static int cmp_s32(const void *a, const void *b)
{
	__s32 x = *(const __s32 *)a, y = *(const __s32 *)b;

	return x < y ? -1 : x > y;
}

char *rt_fmt_ranks(__s32 *ranks, size_t n, char *buf, size_t len)
{
	size_t i = 0, at = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (n > 1)
		qsort(ranks, n, sizeof(*ranks), cmp_s32);
	while (i < n && at < len) {
		size_t k = i;

		while (k + 1 < n && ranks[k + 1] <= ranks[k] + 1)
			k++;	/* a run, repeats folded */
		if (ranks[k] == ranks[i])
			at += (size_t)snprintf(buf + at, len - at, "%s%d", at ? "," : "", ranks[i]);
		else
			at += (size_t)snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", ranks[i], ranks[k]);
		i = k + 1;
	}
	return buf;
}

__u32 rt_job_key_hash(const char *key)
{
	return rt_hash_bytes(key, strnlen(key, RT_JOB_KEY_LEN));
}
