// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt-sample: the guest suite's pool sampler (built static on the host, run in
 * the guest from the 9p share; a shell loop cannot keep 100 ms under TCG).
 *
 *   zt-sample MS OUTFILE FILE...
 *
 * Every MS milliseconds (CLOCK_MONOTONIC, absolute deadlines, so a slow
 * sample does not shift the next) appends "t_ms pool_kB WORD..." to OUTFILE:
 * t_ms since start, pool_kB the "Zswap:" line of /proc/meminfo, then the
 * first word of each FILE ("-" when it cannot be read), e.g. a
 * memory.zswap.max ("max" or bytes) and memory.zswap.current.
 * Runs until SIGTERM or SIGINT. Exit 0, 1 on a write error, 2 on usage.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_sig(int s) { (void) s; stop = 1; }

static ssize_t slurp(const char *path, char *buf, size_t sz) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sz - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

int main(int argc, char **argv) {
	struct sigaction sa = { .sa_handler = on_sig };
	struct timespec t0, next;
	char mi[8192], cap[64];
	long ms;
	FILE *out;

	if (argc < 4 || (ms = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: zt-sample MS OUTFILE FILE...\n");
		return 2;
	}
	out = fopen(argv[2], "we");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	next = t0;
	while (!stop) {
		struct timespec now;
		long long pool = -1;
		char *p;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (slurp("/proc/meminfo", mi, sizeof(mi)) > 0 && (p = strstr(mi, "\nZswap:")))
			pool = atoll(p + 7);
		fprintf(out, "%lld %lld",
			(long long) (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000, pool);
		for (int i = 3; i < argc; i++) {
			if (slurp(argv[i], cap, sizeof(cap)) > 0)
				cap[strcspn(cap, " \n")] = 0;
			else
				cap[0] = 0;
			if (!cap[0])
				strcpy(cap, "-");
			fprintf(out, " %s", cap);
		}
		fputc('\n', out);
		fflush(out);
		next.tv_nsec += ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
			next = now; /* overran: no burst of catch-up samples */
		else
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return ferror(out) || fclose(out) ? 1 : 0;
}
