// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Two builds of rocetop's XDP program compared in one process: a change to the
 * BPF side is kept only when it measurably helps (ARCHITECTURE.md, "Cost per
 * frame"), and this machine's own speed moves xdp_bench's figures between
 * invocations by more than most changes do. So both objects are loaded side by
 * side with the pass-only program and run in turn within every round, on the
 * same frame, A before B in even rounds and B before A in odd ones; per frame
 * the medians over the rounds of each one's added ns and of their difference
 * B - A, with its interquartile range.
 *
 * A is the object built into this binary (BUILD's rocetop.bpf.o); B is OTHER,
 * another build of bpf/rocetop.bpf.c (say of the commit before a change:
 * `git worktree add /tmp/old REV && make -C /tmp/old`, then
 * `-b /tmp/old/build/rocetop.bpf.o`). Without -b, B is A loaded a second
 * time: an A/A run, whose B - A is how small a difference this machine
 * resolves (make bench runs that). With -p PROG, B runs the XDP program PROG
 * of its object instead of rt_xdp: `-p rt_xdp_split` weighs the split
 * program that older kernels load (bpf/rocetop.bpf.c) against rt_xdp.
 *
 * Then both tables at 40% and 80% fill with their slots cold (bench/cold.h),
 * A and B taking turns on every frame.
 *
 * Usage: xdp_ab [BUILD] [-b OTHER.bpf.o] [-p PROG] [-r ROUNDS] [-n REPEAT]
 * Exit 0 when it ran, 1 when it cannot (not root, no BPF, OTHER unreadable or
 * not a build of the same program).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
/* parse.h unrolls its loops for the BPF target; gcc has no use for the hint. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "../bpf/parse.h"
#pragma GCC diagnostic pop
#include "frames.h"
#include "live_maps.h"
#include "rocetop.skel.h"
#include "bench_pass.skel.h"
#include "bpf_bench.h"
#include "cold.h"

#define MAX_ROUNDS 401

/* The whole of file path, in *size bytes; NULL with errno set. */
static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)n)) && fread(b, 1, (size_t)n, f) == (size_t)n) {
		*size = (size_t)n;
		fclose(f);
		return b;
	}
	free(b);
	fclose(f);
	errno = errno ? errno : EIO;
	return NULL;
}

static long add[2][NFRAMES][MAX_ROUNDS], diff[NFRAMES][MAX_ROUNDS];

/* The objects: A (this build), B (OTHER's ELF, or A's again), the pass-only program. */
struct ab_objs {
	struct rocetop_bpf *ra, *rb;
	struct bench_pass_bpf *bp;
};

/* Load them; fd[0], fd[1] and *pass_fd: A's, B's (PROG_B) and the pass-only XDP programs. */
static int load_objs(struct ab_objs *o, const char *other, const char *prog_b, void *elf,
		     size_t elf_size, int fd[2], int *pass_fd)
{
	struct bpf_program *pb;

	libbpf_set_print(silent);
	o->ra = rt_skel_load_test(0, 1, NULL);
	o->rb = rt_skel_load_test_elf(elf, elf_size, 0, 1, NULL);
	o->bp = bench_pass_bpf__open_and_load();
	if (!o->ra || !o->bp) {
		fprintf(stderr, "xdp_ab: cannot load the BPF objects (%s); run as root on a "
			"kernel with BPF\n", strerror(errno));
		return -1;
	}
	if (!o->rb) {
		fprintf(stderr, "xdp_ab: cannot load %s as a build of bpf/rocetop.bpf.o: not a "
			"BPF object, or its maps, programs or globals differ from this build's\n",
			other ? other : "this build's object a second time");
		return -1;
	}
	fd[0] = bpf_program__fd(o->ra->progs.rt_xdp);
	pb = bpf_object__find_program_by_name(o->rb->obj, prog_b);
	if (!pb || bpf_program__type(pb) != BPF_PROG_TYPE_XDP || bpf_program__fd(pb) < 0) {
		fprintf(stderr, "xdp_ab: %s is not a loaded XDP program of B's object\n", prog_b);
		return -1;
	}
	fd[1] = bpf_program__fd(pb);
	*pass_fd = bpf_program__fd(o->bp->progs.rt_pass);
	return 0;
}

/* A warm-up, then the rounds: per frame the pass-only run, then A and B in
 * turn (A first in even rounds); add[] and diff[] per round. */
static int run_rounds(const int fd[2], int pass_fd, const struct frame *fr, __u32 repeat, int rounds)
{
	/* warm up: claims the flows' slots in both tables, faults the code in */
	for (int p = 0; p < NFRAMES; p++)
		if (run_xdp(fd[0], &fr[p], 1000) < 0 || run_xdp(fd[1], &fr[p], 1000) < 0 ||
		    run_xdp(pass_fd, &fr[p], 1000) < 0) {
			fprintf(stderr, "xdp_ab: test run of %s failed\n", fr[p].name);
			return -1;
		}
	for (int r = 0; r < rounds; r++)
		for (int p = 0; p < NFRAMES; p++) {
			int first = r & 1;
			long base = run_xdp(pass_fd, &fr[p], repeat);
			long t1 = run_xdp(fd[first], &fr[p], repeat);
			long t2 = run_xdp(fd[!first], &fr[p], repeat);

			if (base < 0 || t1 < 0 || t2 < 0) {
				fprintf(stderr, "xdp_ab: test run of %s failed\n", fr[p].name);
				return -1;
			}
			add[first][p][r] = t1 - base;
			add[!first][p][r] = t2 - base;
			diff[p][r] = add[1][p][r] - add[0][p][r];
		}
	return 0;
}

static void print_rounds(const struct frame *fr, const char *other, const char *prog_b, __u32 repeat,
			 int rounds)
{
	printf("Two builds of the XDP program in one process (BPF_PROG_TEST_RUN, repeat %u;\n"
	       "%d rounds, each frame's pass-only run, then A and B in turn, A first in even\n"
	       "rounds; medians over the rounds; one CPU)\n"
	       "A: this build's rocetop.bpf.o\n", repeat, rounds);
	if (other)
		printf("B: %s, program %s\n\n", other, prog_b);
	else if (strcmp(prog_b, "rt_xdp"))
		printf("B: A's program %s, loaded again\n\n", prog_b);
	else
		printf("B: A loaded again (an A/A run: B - A is the noise floor of a comparison)\n\n");
	printf("%-28s %9s %9s %7s %7s\n", "packet", "A added", "B added", "B - A", "IQR");
	for (int p = 0; p < NFRAMES; p++) {
		long iqr, a = median(add[0][p], rounds), b = median(add[1][p], rounds);
		long d = quartiles(diff[p], rounds, &iqr);

		printf("%-28s %9ld %9ld %+7ld %7ld\n", fr[p].name, a, b, d, iqr);
	}
}

int main(int argc, char **argv)
{
	struct ab_objs o = { 0 };
	const char *other = NULL, *prog_b = "rt_xdp";
	struct frame fr[NFRAMES];
	__u32 repeat = 100000;
	int rounds = 121, rc = 1, fd[2], pass_fd;
	void *elf = NULL;
	size_t elf_size = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-b") && i + 1 < argc)
			other = argv[++i];
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			prog_b = argv[++i];
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			repeat = (__u32)strtoul(argv[++i], NULL, 0);
	}
	if (bench_rounds_ok("xdp_ab", rounds, MAX_ROUNDS, repeat))
		return 1;
	if (other && !(elf = read_file(other, &elf_size))) {
		fprintf(stderr, "xdp_ab: cannot read %s: %s\n", other, strerror(errno));
		return 1;
	}
	if (!load_objs(&o, other, prog_b, elf, elf_size, fd, &pass_fd)) {
		pin_cpu();
		bench_frames(fr);
		if (!run_rounds(fd, pass_fd, fr, repeat, rounds)) {
			static const char *const name[] = { "A", "B" };
			struct cold_fill c[COLD_NFILL];

			print_rounds(fr, other, prog_b, repeat, rounds);
			if (!cold_bench("xdp_ab", fd, 2, pass_fd,
					o.ra->rodata->rt_ft_nbuckets * RT_FT_BUCKET, c)) {
				cold_print(c, 2, name);
				rc = 0;
			}
		}
	}
	bench_pass_bpf__destroy(o.bp);
	rocetop_bpf__destroy(o.rb);
	rocetop_bpf__destroy(o.ra);
	free(elf);
	return rc;
}
