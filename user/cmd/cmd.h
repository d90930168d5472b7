/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The commands (user/cmd/): the top floor, where a command line becomes a
 * run. Only main.c and the commands include this.
 */
#ifndef RT_CMD_H
#define RT_CMD_H

#include <stddef.h>
#include "opts.h"

/*
 * Build the sources and sinks a command line asks for and run them through
 * the loop (user/cmd/run.c) until the end, a signal or -n; 0 or a negative
 * errno.
 */
int rt_run(const struct rt_opts *o);

/* --job-of: the jobs of the pids given, printed; the exit status. */
/* Where the jobs' reader finds /proc: DIR/proc under --sysfs-root DIR (a
 * fixture's pids are its own; a container mounts the host's there), else /proc. */
const char *rt_jobs_proc(const struct rt_opts *o, char *buf, size_t len);
int rt_job_of(const struct rt_opts *o);

/* Subcommands: argv[0] is the subcommand's name; the exit status. */
int rt_report_main(int argc, char **argv);		/* report.c */
int rt_lab_main(int argc, char **argv);			/* lab.c */
int rt_doctor_main(int argc, char **argv);		/* doctor.c */
int rt_probe_main(int argc, char **argv);		/* probe.c */

#endif
