/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Output files (-w, --csv, rotations) opened with care: never through a
 * symbolic link, never onto the file being read (-r), never into a directory
 * someone else may plant links in, with an exclusive lock where two writers
 * would spoil each other, and a word when an earlier run's file is replaced.
 */
#ifndef RT_OUTFILE_H
#define RT_OUTFILE_H

/* Remember the file being read (-r), compared by device and inode. */
void rt_protect_input(int fd);
/* 1 if path names the file being read (after resolving links), else 0. */
int rt_is_input(const char *path);

#define RT_OUT_LOCK	1	/* flock(LOCK_EX): a second writer is refused */

/*
 * Open path for writing as `what` says (a sentence's subject, "the recording"),
 * truncating it after the checks: O_NOFOLLOW, a regular file with one link,
 * not the input. Returns the fd or a negative errno after saying why.
 */
int rt_out_open(const char *path, const char *what, int flags);
/* A directory outputs go into: 0, or -EPERM after saying why it is unsafe. */
int rt_out_check_dir(const char *dir, const char *what);

#endif
