// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Output files opened with the care tcpdump takes as root (see outfile.h):
 * rocetop runs as root, so a path under a directory another user controls
 * must not become a way to overwrite /etc/anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "log.h"
#include "outfile.h"

static dev_t in_dev;
static ino_t in_ino;
static int have_in;

void rt_protect_input(int fd)
{
	struct stat st;

	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		in_dev = st.st_dev;
		in_ino = st.st_ino;
		have_in = 1;
	}
}

static int is_in(const struct stat *st)
{
	return have_in && st->st_dev == in_dev && st->st_ino == in_ino;
}

int rt_is_input(const char *path)
{
	struct stat st;

	return !stat(path, &st) && is_in(&st);
}

int rt_out_check_dir(const char *dir, const char *what)
{
	struct stat st;

	if (stat(dir, &st))
		return 0;	/* the open that follows says what is wrong */
	if (!S_ISDIR(st.st_mode)) {
		pr_warn("%s wants a directory, and %s is not one.\n", what, dir);
		return -ENOTDIR;
	}
	/* Others could plant a link named like an output there (unless sticky
	 * and ours: then only we may rename or remove our files). */
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
	    !((st.st_mode & S_ISVTX) && st.st_uid == geteuid())) {
		pr_warn("%s: the directory %s is writable by other users, who could plant links there; use a directory only you can write (chmod go-w %s).\n",
			what, dir, dir);
		return -EPERM;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		pr_warn("%s: the directory %s belongs to another user (uid %u); use a directory of your own.\n",
			what, dir, (unsigned)st.st_uid);
		return -EPERM;
	}
	return 0;
}

int rt_out_open(const char *path, const char *what, int flags)
{
	struct stat st;
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		if (errno == ELOOP)
			pr_warn("cannot write %s %s: it is a symbolic link, and rocetop does not write through links (name the file itself).\n",
				what, path);
		else
			pr_warn("cannot write %s %s: %s.\n", what, path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		pr_warn("cannot write %s %s: %s.\n", what, path, strerror(errno));
		goto fail;
	}
	if (is_in(&st)) {
		pr_warn("%s %s is the file being read (-r); writing it would destroy it: choose another name.\n",
			what, path);
		err = -EEXIST;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		pr_warn("cannot write %s %s: it is not a regular file.\n", what, path);
		err = -EINVAL;
		goto fail;
	}
	if (st.st_nlink > 1) {
		pr_warn("cannot write %s %s: it has %lu hard links, and writing it would change the others too.\n",
			what, path, (unsigned long)st.st_nlink);
		err = -EMLINK;
		goto fail;
	}
	if ((flags & RT_OUT_LOCK) && flock(fd, LOCK_EX | LOCK_NB)) {
		/* same shape as the open's error above: each failure its own sentence */
		err = -errno;
		if (errno == EWOULDBLOCK)
			pr_warn("%s %s is being written by another process (possibly another rocetop); give each writer its own file.\n",
				what, path);
		else
			pr_warn("cannot lock %s %s: %s.\n", what, path, strerror(errno));
		goto fail;
	}
	if (st.st_size > 0) {
		pr_info("%s %s held %lld bytes of an earlier run; they are replaced.\n", what, path,
			(long long)st.st_size);
		if (ftruncate(fd, 0)) {
			err = -errno;
			pr_warn("cannot truncate %s %s: %s.\n", what, path, strerror(errno));
			goto fail;
		}
	}
	return fd;
fail:
	close(fd);
	return err;
}
