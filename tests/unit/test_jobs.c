// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Jobs from /proc texts written by hand as the kernel prints them for each
 * layout (user/nic/jobs.c names them), ranks from environments, the fields
 * the filter reads, and the join carrying a QP's job to its flows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "job.h"
#include "jobs.h"
#include "join.h"
#include "qp.h"
#include "record.h"

#define CG(s) rt_job_from_cgroup(s, sizeof(s) - 1, &j)

static void test_layouts(void)
{
	struct rt_job j;

	CG("0::/system.slice/slurmstepd.scope/job_4711/step_0/user/task_3\n");
	CHECK_EQ(j.kind, RT_JOB_SLURM);
	CHECK(!strcmp(j.job, "4711") && !strcmp(j.step, "0"), "%s %s", j.job, j.step);
	/* a hybrid host: v1 Slurm in freezer, v2 at the root */
	CG("9:freezer:/slurm/uid_1000/job_12/step_batch/task_0\n4:memory:/slurm/uid_1000/job_12/step_batch\n0::/\n");
	CHECK(j.kind == RT_JOB_SLURM && !strcmp(j.job, "12") && !strcmp(j.step, "batch"), "%s %s", j.job, j.step);
	CHECK(!strcmp(j.cgroup, "/slurm/uid_1000/job_12/step_batch/task_0"), "%s", j.cgroup);
	CG("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c_3d4e.slice/"
	   "cri-containerd-0123456789abcdef.scope\n");
	CHECK(j.kind == RT_JOB_K8S && !strcmp(j.job, "1b2c-3d4e") && !strcmp(j.step, "0123456789abcdef"),
	      "%s %s", j.job, j.step);
	CG("0::/kubepods.slice/kubepods-pod9a_8.slice/crio-77.scope\n");
	CHECK(j.kind == RT_JOB_K8S && !strcmp(j.job, "9a-8") && !strcmp(j.step, "77"), "%s %s", j.job, j.step);
	CG("5:cpu:/kubepods/besteffort/podab-cd/ffee\n0::/\n");
	CHECK(j.kind == RT_JOB_K8S && !strcmp(j.job, "ab-cd") && !strcmp(j.step, "ffee"), "%s %s", j.job, j.step);
	CG("0::/system.slice/train.service\n");
	CHECK(j.kind == RT_JOB_UNIT && !strcmp(j.job, "train.service"), "%s", j.job);
	CG("0::/user.slice/user-0.slice/session-4.scope\n");
	CHECK(j.kind == RT_JOB_UNIT && !strcmp(j.job, "session-4.scope"), "%s", j.job);
	CG("0::/lab/a b,c\n");
	CHECK(j.kind == RT_JOB_CGROUP && !strcmp(j.job, "/lab/a b,c"), "%s", j.job);
	/* a newline in a cgroup's name continues the path on the next line */
	CG("0::/system.slice/odd\nname.service\n");
	CHECK(j.kind == RT_JOB_UNIT && !strcmp(j.job, "odd\nname.service"), "%s", j.job);
	CG("0::/\n");
	CHECK(j.kind == RT_JOB_CGROUP && !strcmp(j.job, "/"), "%s", j.job);
	CG("");
	CHECK_EQ(j.kind, RT_JOB_NONE);
	TEST_END("jobs: cgroup layouts");
}

#define ENV(s) rt_job_from_environ(s, sizeof(s) - 1, &j)

static void test_environ(void)
{
	struct rt_job j;

	CG("0::/\n");
	ENV("PATH=/bin\0RANK=7\0WORLD_SIZE=16\0LOCAL_RANK=3\0");
	CHECK(j.rank == 7 && j.size == 16 && j.local_rank == 3, "%d %d %d", j.rank, j.size, j.local_rank);
	CG("0::/\n");
	ENV("SLURM_PROCID=5\0SLURM_NTASKS=6\0OMPI_COMM_WORLD_RANK=2\0OMPI_COMM_WORLD_SIZE=4\0"
	    "SLURM_JOB_ID=99\0SLURM_STEP_ID=1\0SLURM_LOCALID=0\0");
	CHECK(j.rank == 2 && j.size == 4 && j.local_rank == 0, "%d %d %d", j.rank, j.size, j.local_rank);
	CHECK(j.kind == RT_JOB_SLURM && !strcmp(j.job, "99") && !strcmp(j.step, "1"), "%s %s", j.job, j.step);
	/* the cgroup's Slurm job stands; junk ranks are no ranks */
	CG("0::/system.slice/slurmstepd.scope/job_1/step_2\n");
	ENV("SLURM_JOB_ID=99\0PMI_RANK=x1\0RANK=-1\0RANK_X=3\0RANK");
	CHECK(j.kind == RT_JOB_SLURM && !strcmp(j.job, "1") && j.rank == -1, "%s %d", j.job, j.rank);
	TEST_END("jobs: ranks from the environment");
}

static void test_fields(void)
{
	struct rt_job j;
	char buf[256];

	CG("0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-2.scope\n");
	snprintf(j.job, sizeof(j.job), "ns/pod");
	j.rank = 4;
	CHECK(!strcmp(rt_job_field(&j, "pod"), "ns/pod") && !strcmp(rt_job_field(&j, "unit"), ""),
	      "pod %s", rt_job_field(&j, "pod"));
	CHECK(!strcmp(rt_job_field(&j, "rank"), "4") && !strcmp(rt_job_field(&j, "size"), ""), "rank");
	CHECK(rt_job_field(&j, "nope") == NULL && !strcmp(rt_job_field(NULL, "job"), ""), "unknown");
	CHECK(!strcmp(rt_job_label(&j, buf, sizeof(buf)), "k8s:ns/pod/2"), "%s", buf);
	TEST_END("jobs: fields and labels");
}

/* A QP's job row reaches the flows it owns, and leaves with the QP. */
static void test_join(void)
{
	struct rt_snapshot s;
	struct rt_qp q[1];
	struct rt_qp_table t = { .q = q, .n = 1, .cap = 1 };
	struct rt_flow *f;
	struct rt_job *j;

	rt_snapshot_init(&s);
	memset(q, 0, sizeof(q));
	q[0].lqpn = 17, q[0].rqpn = 0x33, q[0].has_rqpn = 1, q[0].pid = 42, q[0].type = 2;
	f = rt_snapshot_add_flow(&s);
	f->k.dir = RT_DIR_EGRESS, f->k.family = 4, f->k.dqpn = 0x33, f->v.pkts = 1;
	j = rt_snapshot_add_job(&s);
	snprintf(j->job, sizeof(j->job), "4711");
	j->kind = RT_JOB_SLURM;
	q[0].job = 1;
	rt_join(&s, &t);
	CHECK(s.flows[0].job == 1 && rt_snapshot_job(&s, &s.flows[0]) == &s.jobs[0], "job %u", s.flows[0].job);
	s.flows[0].job = 2;	/* out of range: none */
	CHECK(rt_snapshot_job(&s, &s.flows[0]) == NULL, "range");
	rt_snapshot_free(&s);
	TEST_END("jobs: the join carries a QP's job");
}

/* A recording keeps the jobs table and each flow's row in it. */
static void test_record(void)
{
	struct rt_snapshot s, o;
	unsigned char *buf = NULL;
	size_t len = 0;
	struct rt_job *j;

	rt_snapshot_init(&s);
	rt_snapshot_init(&o);
	rt_snapshot_add_flow(&s)->job = 2;
	rt_snapshot_add_job(&s);
	j = rt_snapshot_add_job(&s);
	j->kind = RT_JOB_K8S, j->rank = 3, j->size = 8;
	snprintf(j->job, sizeof(j->job), "ns/p o,d\n");
	snprintf(j->cgroup, sizeof(j->cgroup), "/kubepods.slice/x");
	CHECK(!rt_rec_encode(&s, &buf, &len), "encode");
	CHECK(!rt_rec_decode_own(buf, len, &o), "decode");
	CHECK(o.njobs == 2 && o.nflows == 1 && o.flows[0].job == 2, "njobs %zu", o.njobs);
	CHECK(o.njobs == 2 && !memcmp(&o.jobs[1], j, sizeof(*j)) && o.jobs[0].rank == -1, "job differs");
	free(buf);
	rt_snapshot_free(&s);
	rt_snapshot_free(&o);
	TEST_END("jobs: recorded and read back");
}

int main(void)
{
	test_record();
	test_layouts();
	test_environ();
	test_fields();
	test_join();
	return TEST_EXIT();
}
