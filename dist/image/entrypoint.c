// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The container image's PID 1 (dist/image/build.sh puts it in the image as
 * /usr/bin/rocetop-entrypoint): it runs rocetop as the service does
 * (dist/rocetop-exporter.service), `rocetop -D --listen $ROCETOP_LISTEN
 * $ROCETOP_INTERFACES $ROCETOP_OPTS`, then the container's own arguments.
 * The image holds no shell, so the variables are split here, on blanks only:
 * no quoting, no globbing, nothing in them is ever run. As PID 1 it passes
 * the stop signals and SIGUSR1 (the flight recorder's) on to rocetop, reaps
 * every child, and exits with rocetop's status (128 + the signal that ended
 * it). ROCETOP_LISTEN defaults to 0.0.0.0:9465, reachable from a Prometheus
 * on another host; no interface named (neither variable nor argument
 * starting with -i, --interface or -r) is refused in one sentence.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROCETOP "/usr/bin/rocetop"
#define MAX_ARGS 256

static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

/* Words of s (blank-separated, s is modified) appended to argv; -1 when too many. */
static int split(char *s, char **argv, int *argc)
{
	char *save = NULL, *w;

	for (w = strtok_r(s, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (*argc >= MAX_ARGS - 1)
			return -1;
		argv[(*argc)++] = w;
	}
	return 0;
}

static char *env_copy(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return strdup(v && *v ? v : dflt);
}

/* Whether the command line names something to watch or read. */
static int names_a_source(char **argv, int argc)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strncmp(argv[i], "-i", 2) || !strncmp(argv[i], "--interface", 11) ||
		    !strncmp(argv[i], "-r", 2) || !strncmp(argv[i], "--sflow", 7) ||
		    !strcmp(argv[i], "--help") || !strcmp(argv[i], "--version"))
			return 1;
	return 0;
}

/* rocetop's status as the container's exit status. */
static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int supervise(pid_t child, const sigset_t *set)
{
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(set, &si), st;
		pid_t p;

		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			kill(child, sig);
			continue;
		}
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == child)
				return status_of(st);
	}
}

int main(int argc, char **argv)
{
	char *args[MAX_ARGS], *listen = env_copy("ROCETOP_LISTEN", "0.0.0.0:9465");
	char *ifs = env_copy("ROCETOP_INTERFACES", ""), *opts = env_copy("ROCETOP_OPTS", "");
	int n = 0, i;
	sigset_t set;
	pid_t child;

	args[n++] = ROCETOP;
	args[n++] = "-D";
	args[n++] = "--listen";
	args[n++] = listen;
	if (!listen || !ifs || !opts || split(ifs, args, &n) || split(opts, args, &n) ||
	    n + argc >= MAX_ARGS) {
		fprintf(stderr, "rocetop-entrypoint: the command line is too long (at most %d words).\n",
			MAX_ARGS - 1);
		return 2;
	}
	for (i = 1; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	if (!names_a_source(args, n)) {
		fprintf(stderr, "rocetop-entrypoint: no interface to watch: set ROCETOP_INTERFACES (e.g. ROCETOP_INTERFACES=\"-i eth0\") or pass -i IFACE as the container's arguments.\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; i < (int)(sizeof(forwarded) / sizeof(forwarded[0])); i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);	/* blocked, a signal reaches PID 1 */
	child = fork();
	if (child < 0) {
		fprintf(stderr, "rocetop-entrypoint: cannot start rocetop: %s.\n", strerror(errno));
		return 1;
	}
	if (!child) {
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		execv(ROCETOP, args);
		fprintf(stderr, "rocetop-entrypoint: cannot run %s: %s.\n", ROCETOP, strerror(errno));
		_exit(127);
	}
	return supervise(child, &set);
}
