// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Sockets for the endpoints a user asked for, in rocetop's home namespace (endpoint.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/socket.h>
#include "endpoint.h"
#include "log.h"

static int home_fd = -1;

int rt_endpoint_home_set(void)
{
	rt_endpoint_home_clear();
	home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	return home_fd < 0 ? -errno : 0;
}

void rt_endpoint_home_clear(void)
{
	if (home_fd >= 0)
		close(home_fd);
	home_fd = -1;
}

int rt_endpoint_socket(int domain, int type, int protocol)
{
	int here, fd, e;

	if (home_fd < 0)
		return socket(domain, type, protocol);
	/* setns() moves only the calling thread; the thread moves back at once. */
	here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (here < 0)
		return -1;
	if (setns(home_fd, CLONE_NEWNET)) {
		e = errno;
		close(here);
		errno = e;
		return -1;
	}
	fd = socket(domain, type, protocol);
	e = errno;
	if (setns(here, CLONE_NEWNET)) {
		/* Staying in the wrong namespace would watch the wrong interfaces. */
		pr_warn("cannot return to the watched network namespace: %s.\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		close(here);
		errno = EIO;
		return -1;
	}
	close(here);
	errno = e;
	return fd;
}
