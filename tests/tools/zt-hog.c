// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt-hog: a memory hog for zswap-tuned's tests and benchmarks.
 *
 *   zt-hog --size MiB [--rate MiB/s] [--ratio N] [--hold SEC] [--ready-fd FD]
 *
 * Maps --size MiB of anonymous memory and writes every page with data that
 * compresses about N:1 (the first 1/N of each page random, the rest a
 * repeated byte), paced to --rate MiB/s (0 = as fast as possible). It then
 * keeps rewriting every page with fresh data of the same kind, round and
 * round at the same pace, so that in a memory-limited cgroup the pages keep
 * cycling through swap, until --hold seconds (default 0) have passed since
 * the fill finished, or SIGTERM or SIGINT arrives. With --ready-fd,
 * "ready\n" is written to FD (then closed, unless it is 0-2) once the first
 * fill is complete. At the end one line goes to stdout:
 * "hog: wrote X MiB in Y s (Z MiB/s)", counting every page written, the
 * fill and the rewrites.
 *
 * Exit status: 0 done, 1 runtime failure, 2 usage error.
 */

#ifndef _GNU_SOURCE /* config.h may define it already */
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024UL * 1024UL)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep until CLOCK_MONOTONIC reaches t (seconds); returns early on a signal. */
static void sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t xorshift64(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* Fill one page: random head (page_size / ratio bytes), repeated-byte tail. */
static void fill_page(unsigned char *p, size_t page_size, double ratio)
{
	size_t head = (size_t)((double)page_size / ratio);
	size_t i;

	for (i = 0; i + sizeof(uint64_t) <= head; i += sizeof(uint64_t)) {
		uint64_t r = xorshift64();

		memcpy(p + i, &r, sizeof(r));
	}
	for (; i < head; i++)
		p[i] = (unsigned char)xorshift64();
	memset(p + head, (int)(xorshift64() & 0xff), page_size - head);
}

static int parse_num(const char *opt, const char *s, double min, double max,
		     double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "zt-hog: invalid --%s value '%s'\n", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: zt-hog --size MiB [--rate MiB/s] [--ratio N] "
		   "[--hold SEC] [--ready-fd FD]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "rate", required_argument, NULL, 'r' },
		{ "ratio", required_argument, NULL, 'R' },
		{ "hold", required_argument, NULL, 'H' },
		{ "ready-fd", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double size_mib = 0, rate = 0, ratio = 3, hold = 0, fd_arg = -1;
	size_t page_size, npages, len, i;
	uint64_t written = 0; /* pages */
	unsigned char *mem;
	struct sigaction sa;
	double start, fill_end, elapsed, mib;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case 's':
			rc = parse_num("size", optarg, 1, 1 << 24, &size_mib);
			break;
		case 'r':
			rc = parse_num("rate", optarg, 0, 1e9, &rate);
			break;
		case 'R':
			rc = parse_num("ratio", optarg, 1, 64, &ratio);
			break;
		case 'H':
			rc = parse_num("hold", optarg, 0, 1e9, &hold);
			break;
		case 'f':
			rc = parse_num("ready-fd", optarg, 0, 1 << 20, &fd_arg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (rc)
			return 2;
	}
	if (optind < argc || size_mib <= 0) {
		usage(stderr);
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	len = (size_t)(size_mib * (double)MIB);
	len = (len + page_size - 1) / page_size * page_size;
	npages = len / page_size;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "zt-hog: mmap %zu bytes: %s\n", len, strerror(errno));
		return 1;
	}
	rng_state ^= (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);

	/* Pages per pacing step: about 1 MiB, checked against the clock. */
	const size_t step = MIB / page_size ? MIB / page_size : 1;
	const double bytes_per_s = rate * (double)MIB;

	start = now();
	for (i = 0; i < npages && !stop; i++) {
		fill_page(mem + i * page_size, page_size, ratio);
		written++;
		if (bytes_per_s > 0 && written % step == 0)
			sleep_until(start + (double)written * (double)page_size / bytes_per_s);
	}
	fill_end = now();

	if (fd_arg >= 0) {
		int fd = (int)fd_arg;

		if (write(fd, "ready\n", 6) != 6)
			fprintf(stderr, "zt-hog: --ready-fd %d: %s\n", fd, strerror(errno));
		if (fd > 2)
			close(fd);
	}

	/* Rewrite every page, round and round, until --hold expires. */
	for (i = 0; !stop && now() - fill_end < hold; i = (i + 1) % npages) {
		fill_page(mem + i * page_size, page_size, ratio);
		written++;
		if (bytes_per_s > 0 && written % step == 0)
			sleep_until(start + (double)written * (double)page_size / bytes_per_s);
	}

	elapsed = now() - start;
	mib = (double)written * (double)page_size / (double)MIB;
	printf("hog: wrote %.0f MiB in %.2f s (%.1f MiB/s)\n", mib, elapsed,
	       elapsed > 0 ? mib / elapsed : 0.0);
	munmap(mem, len);
	return 0;
}
