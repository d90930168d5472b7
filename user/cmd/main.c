// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop: where is my RoCEv2 fabric congested, per flow, live.
 * Subcommands, then the command line (user/cmd/main_opts.c) into the run (user/cmd/run.c).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "findings.h"
#include "log.h"
#include "host.h"
#include "main_opts.h"

int main(int argc, char **argv)
{
	char cmdline[1024];
	struct rt_opts o;
	sigset_t usr1;
	int err;

	/* SIGUSR1 ("flight recorder, write now") waits for the loop's signalfd
	 * (user/core/loop.c): blocked here, before any thread starts, it cannot
	 * end a run still attaching or building the lab, as its default would. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return rt_report_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "doctor"))
		return rt_doctor_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "probe"))
		return rt_probe_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "lab"))
		return rt_lab_main(argc - 1, argv + 1);
	if (argc == 2 && !strcmp(argv[1], "--dump-rules")) {	/* README.md's table: make options */
		rt_rules_dump(&rt_rules, stdout);
		return fflush(stdout) || ferror(stdout) ? 1 : 0;
	}

	err = rt_parse_args(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	/* What recordings and --csv say the run was (user/core/host.h). */
	o.cmdline = rt_host_options(cmdline, sizeof(cmdline), argc - 1, argv + 1);
	if (o.njob_of)
		return rt_job_of(&o);
	if (!o.nifaces && !o.read_file && !o.sflow) {
		pr_warn("nothing to watch: name an interface (-i eth0), a file (-r run.rtr), an sFlow port (--sflow 6343), or try the test bed (rocetop lab).\n");
		fprintf(stderr, "Try 'rocetop --help' for the options.\n");
		return 2;
	}
	o.drop_caps = 1;
	return rt_run(&o) ? 1 : 0;
}
