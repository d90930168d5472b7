// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exporter on itself: the process_* figures as the Prometheus client
 * libraries name them (CPU, memory, file descriptors, start time), read from
 * /proc/self, and the run count and time of the BPF programs this process
 * holds, which the kernel counts while kernel.bpf_stats_enabled is 1. Read
 * once per interval, before the exposition is rendered (exporters/prom_http.c);
 * exporters/prom_render.c writes them out.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include "prom.h"

/* Fields 14, 15 (utime, stime), 22 (starttime), 23 (vsize), 24 (rss) of /proc/self/stat. */
static int read_stat(struct rt_prom_self *s)
{
	unsigned long long ut, st, start, vsize, rss, btime = 0;
	char buf[1024], line[256], *p;
	long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the command name may hold spaces and parentheses */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d %llu %llu %llu",
			 &ut, &st, &start, &vsize, &rss) != 5)
		return -EINVAL;
	f = fopen("/proc/stat", "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %llu", &btime) == 1)
			break;
	if (f)
		fclose(f);
	s->cpu_secs = (double)(ut + st) / (double)tck;
	s->start_time = (double)btime + (double)start / (double)tck;
	s->vsize_bytes = vsize;
	s->rss_bytes = rss * (unsigned long long)page;
	return 0;
}

static void add_prog(struct rt_prom_self *s, int fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	size_t i;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	for (i = 0; i < s->nprogs; i++)
		if (s->progs[i].id == info.id)
			return;		/* held by another fd too */
	if (s->nprogs == RT_SELF_PROGS) {
		s->progs_left++;
		return;
	}
	s->progs[s->nprogs].id = info.id;
	snprintf(s->progs[s->nprogs].name, sizeof(s->progs[0].name), "%s", info.name);
	s->progs[s->nprogs].run_cnt = info.run_cnt;
	s->progs[s->nprogs].run_ns = info.run_time_ns;
	s->nprogs++;
}

/* The open descriptors, and those that are BPF programs. */
static int read_fds(struct rt_prom_self *s)
{
	char path[64], link[64];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	struct rlimit rl;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		ssize_t n;

		if (*end || end == e->d_name || fd == dirfd(d))
			continue;
		s->open_fds++;
		snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = 0;
			if (!strcmp(link, "anon_inode:bpf-prog"))
				add_prog(s, (int)fd);
		}
	}
	closedir(d);
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		s->max_fds = rl.rlim_cur == RLIM_INFINITY ? 0 : (unsigned long long)rl.rlim_cur;
	return 0;
}

int rt_prom_self_read(struct rt_prom_self *s)
{
	FILE *f;
	int err;

	memset(s, 0, sizeof(*s));
	s->bpf_stats = -1;
	f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	if (f) {
		if (fscanf(f, "%d", &s->bpf_stats) != 1)
			s->bpf_stats = -1;
		fclose(f);
	}
	err = read_stat(s);
	if (!err)
		err = read_fds(s);
	s->valid = !err;
	return err;
}
