// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exposition's families of the exporter on itself: the time the last
 * snapshot took to collect and the intervals missed, then, when
 * exporters/prom_self.c could read them, the process_* figures as the
 * Prometheus client libraries name them and the run count and time of each
 * BPF program this process holds (exporters/prom_render.c calls this).
 */
#include <stdio.h>
#include "prom.h"
#include "prom_out.h"
#include "snapshot.h"

/* The process_* families as the Prometheus client libraries name them. */
static void render_process(struct out *w, const struct rt_prom_self *s)
{
	prom_family(w, "process_cpu_seconds", M_COUNTER, "seconds", "Total user and system CPU time spent in seconds.");
	prom_sample_d(w, "process_cpu_seconds", M_COUNTER, "", s->cpu_secs);
	prom_family(w, "process_resident_memory_bytes", M_GAUGE, "bytes", "Resident memory size in bytes.");
	prom_sample_u(w, "process_resident_memory_bytes", M_GAUGE, "", s->rss_bytes);
	prom_family(w, "process_virtual_memory_bytes", M_GAUGE, "bytes", "Virtual memory size in bytes.");
	prom_sample_u(w, "process_virtual_memory_bytes", M_GAUGE, "", s->vsize_bytes);
	prom_family(w, "process_open_fds", M_GAUGE, NULL, "Number of open file descriptors.");
	prom_sample_u(w, "process_open_fds", M_GAUGE, "", s->open_fds);
	if (s->max_fds) {
		prom_family(w, "process_max_fds", M_GAUGE, NULL, "Maximum number of open file descriptors.");
		prom_sample_u(w, "process_max_fds", M_GAUGE, "", s->max_fds);
	}
	prom_family(w, "process_start_time_seconds", M_GAUGE, "seconds",
	       "Start time of the process since unix epoch in seconds.");
	prom_sample_d(w, "process_start_time_seconds", M_GAUGE, "", s->start_time);
}

/* The collector's costs, and the BPF programs' run count and time. */
void rt_prom_render_self_figures(struct out *w, const struct rt_prom_self *s, const struct rt_delta *d)
{
	char set[LSET], id[16];
	size_t i;

	prom_family(w, "rocetop_collect_duration_seconds", M_GAUGE, "seconds",
	       "Time the last snapshot took to collect (the kernel's maps, NIC counters, sFlow).");
	prom_sample_d(w, "rocetop_collect_duration_seconds", M_GAUGE, "", d->collect_secs);
	prom_family(w, "rocetop_snapshots_missed", M_COUNTER, NULL,
	       "Intervals whose snapshot was not taken because the previous one was still being taken or shown.");
	prom_sample_u(w, "rocetop_snapshots_missed", M_COUNTER, "", d->missed);
	if (!s->valid)
		return;
	render_process(w, s);
	prom_family(w, "rocetop_bpf_stats_enabled", M_GAUGE, NULL,
	       "kernel.bpf_stats_enabled: 1 while the kernel counts the BPF programs' runs and run time.");
	prom_sample_u(w, "rocetop_bpf_stats_enabled", M_GAUGE, "", s->bpf_stats == 1);
	prom_family(w, "rocetop_bpf_prog_runs", M_COUNTER, NULL,
	       "Runs of each BPF program rocetop holds (bpf_prog_info run_cnt), counted while kernel.bpf_stats_enabled is 1.");
	for (i = 0; i < s->nprogs; i++) {
		set[0] = 0;
		prom_label(set, sizeof(set), "prog", s->progs[i].name);
		snprintf(id, sizeof(id), "%u", s->progs[i].id);
		prom_label(set, sizeof(set), "id", id);
		prom_sample_u(w, "rocetop_bpf_prog_runs", M_COUNTER, set, s->progs[i].run_cnt);
	}
	prom_family(w, "rocetop_bpf_prog_run_seconds", M_COUNTER, "seconds",
	       "Time each BPF program rocetop holds ran (bpf_prog_info run_time_ns), counted while kernel.bpf_stats_enabled is 1.");
	for (i = 0; i < s->nprogs; i++) {
		set[0] = 0;
		prom_label(set, sizeof(set), "prog", s->progs[i].name);
		snprintf(id, sizeof(id), "%u", s->progs[i].id);
		prom_label(set, sizeof(set), "id", id);
		prom_sample_d(w, "rocetop_bpf_prog_run_seconds", M_COUNTER, set, s->progs[i].run_ns / 1e9);
	}
}
