// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zbench - batch hog and latency probe for the zswap-tuned benchmark (runs in the
 * guest; built static on the host). Adapted from the shared qemu test bed's zbench.
 *
 *   zbench hog   -s SIZE [-d DATASET] [-c CHUNK]
 *       mmap SIZE bytes of anonymous memory and write every page once (in a
 *       memory-limited cgroup this pushes pages out through zswap); prints
 *       write.kbps, write.usecs, rusage, chunk stall percentiles and the
 *       CLOCK_MONOTONIC start/end of the write phase in ms (write.t0_ms/t1_ms).
 *
 *   zbench probe -w SIZE [-i INTERVAL_US] [-d DATASET]
 *       latency-sensitive neighbour: populate SIZE bytes, print "probe.ready=1",
 *       then every INTERVAL_US touch (read+write) one random page and record the
 *       access time until SIGTERM/SIGINT; prints p50/p99/p99.9/max and the number
 *       of touches over 1 ms.
 *
 * Data sets (page contents; every page gets fresh data):
 *   mixed  a realistic mix: 10% zero pages, 35% text-like (words from a small
 *          vocabulary), 30% structured records (small integers, pointer-like
 *          values, padding), 25% half-random pages; about 2.5-3x with lzo/lz4.
 *   dense  near-random: 90% random bytes + a 10% zero tail; about 1.1x.
 *   half   every page 35% random, the rest a text pattern (the original bed's data).
 *   real   mixed without zero pages (6.12 keeps zero pages out of zswap): the 10% zero
 *          pages become structured records; about 2.5-3x.
 *
 *   zbench walk -s SIZE [-d DATASET] [-m reread|once] [-g SIGMA] [-w WRITE_PCT] [-l LOG]
 *       batch job (issue 9): fill SIZE bytes, then until SIGTERM touch one page per
 *       operation. reread: page index normally distributed over the footprint (mean in
 *       the middle, sd = SIGMA x footprint, default 0.2; wrapped), read 256 bytes and
 *       hash them, and write 8 bytes with probability WRITE_PCT% (default 20), like
 *       resctl-bench's rd-hashd. once: the old write-once hog in a loop (write every
 *       page sequentially, then MADV_DONTNEED the lot and start again). An operation
 *       = one page touched (fill included). Every 500 ms appends "t_ms ops fill_ops"
 *       (CLOCK_MONOTONIC, cumulative; fill_ops = the pages of the first fill of the footprint,
 *       so that re-reads = ops - fill_ops) to LOG; at exit prints walk.* totals (ops, ops_per_s, rusage).
 *       SIGSTOP/SIGCONT pause it.
 *
 *   zbench calib -s SIZE -n COUNT -C CGROUP_DIR
 *       swap-in latency: fill SIZE (run it in CGROUP_DIR with a memory.max well below
 *       SIZE so most of it is swapped out), write "max" to CGROUP_DIR/memory.max, then
 *       touch up to COUNT non-resident pages (mincore) in random order, one read each,
 *       and print calib.p50_us/p90_us/p99_us/n. Set vm.page-cluster=0 first.
 *
 *   zbench speed [-n ITERATIONS] [-s SIZE]
 *       how fast the guest runs right now (under TCG this moves with the host): the
 *       wall time of ITERATIONS xorshift steps (default 20M; pure CPU) and of writing
 *       one byte to every page of SIZE fresh anonymous memory four times (default 32M;
 *       page faults, the kernel's work per fault). Prints "speed.cpu_ms=X speed.fault_ms=Y".
 *
 *   zbench dump -s SIZE [-d DATASET]
 *       write the hog's page contents to stdout (to check compressibility on the host,
 *       e.g. "zbench dump -s 64M -d mixed | lz4 -1 | wc -c").
 *
 * SIZE accepts K/M/G suffixes. Build: cc -O2 -Wall -static -o zbench zbench.c -lm
 */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline uint64_t xs64(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static unsigned long long parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	switch (*end) {
	case 'k': case 'K': v *= 1024; break;
	case 'm': case 'M': v *= 1024 * 1024; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
	default: break;
	}
	return (unsigned long long)v;
}

enum dataset { DS_MIXED, DS_DENSE, DS_HALF, DS_REAL };

static enum dataset parse_ds(const char *s)
{
	if (!strcmp(s, "mixed")) return DS_MIXED;
	if (!strcmp(s, "dense")) return DS_DENSE;
	if (!strcmp(s, "half")) return DS_HALF;
	if (!strcmp(s, "real")) return DS_REAL;
	fprintf(stderr, "zbench: unknown data set '%s' (mixed, dense, half, real)\n", s);
	exit(2);
}

static void fill_random(unsigned char *p, size_t n, uint64_t *seed)
{
	uint64_t *q = (uint64_t *)p;
	for (size_t i = 0; i < n / 8; i++)
		q[i] = xs64(seed);
}

static const char *const words[64] = {
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with",
	"be", "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which",
	"but", "have", "an", "had", "they", "you", "were", "their", "one", "all", "we",
	"can", "her", "has", "there", "been", "if", "more", "when", "will", "would", "who",
	"so", "no", "memory", "page", "swap", "kernel", "request", "user", "error", "value",
	"count", "time", "server", "client", "cache", "data", "index", "table"
};

static void fill_text(unsigned char *p, uint64_t *seed)
{
	size_t off = 0;
	uint64_t r = 0;
	int bits = 0;
	while (off < PAGE) {
		if (bits < 8) { r = xs64(seed); bits = 64; }
		const char *w = words[r & 63];
		int punct = (r >> 6) & 3;
		r >>= 8; bits -= 8;
		size_t l = strlen(w);
		for (size_t i = 0; i < l && off < PAGE; i++)
			p[off++] = w[i];
		if (off < PAGE)
			p[off++] = punct == 0 ? '\n' : ' ';
	}
}

static void fill_struct(unsigned char *p, unsigned long idx, uint64_t *seed)
{
	/* 64-byte records: id, small counters, a pointer-like value, flags, padding */
	for (size_t off = 0; off < PAGE; off += 64) {
		uint64_t *q = (uint64_t *)(p + off);
		uint64_t r = xs64(seed);
		q[0] = idx * 64 + off / 64;
		q[1] = r & 0xff;
		q[2] = (r >> 8) & 0xffff;
		q[3] = 0x00007f0000000000ull | ((r >> 24) & 0xfffff0);
		q[4] = (r >> 44) & 1;
		q[5] = 0;
		q[6] = 0;
		q[7] = 0xdeadbeefull;
	}
}

static void fill_page(unsigned char *p, unsigned long idx, enum dataset ds, uint64_t *seed)
{
	char pat[32];
	int n;
	switch (ds) {
	case DS_DENSE:
		fill_random(p, PAGE * 9 / 10 & ~7UL, seed);
		memset(p + (PAGE * 9 / 10 & ~7UL), 0, PAGE - (PAGE * 9 / 10 & ~7UL));
		return;
	case DS_HALF:
	case DS_REAL:
	case DS_MIXED: {
		unsigned kind = ds == DS_HALF ? 99 : (unsigned)((idx * 0x9e3779b97f4a7c15ull) >> 57) % 100;
		if (kind < 10 && ds == DS_REAL) {
			fill_struct(p, idx, seed);
			return;
		}
		if (kind < 10) {
			memset(p, 0, PAGE);
			return;
		}
		if (kind < 45) {
			fill_text(p, seed);
			return;
		}
		if (kind < 75) {
			fill_struct(p, idx, seed);
			return;
		}
		/* random region of 35% (half) / 50% (mixed) at a page-dependent offset, text pattern around it */
		size_t nrand = (ds == DS_HALF ? PAGE * 35 / 100 : PAGE / 2) & ~7UL;
		size_t start = ((idx * 712u) % (PAGE - nrand + 1)) & ~7UL;
		n = snprintf(pat, sizeof(pat), "page-%08lx-zswap;", idx);
		for (size_t off = 0; off < PAGE; off += n)
			memcpy(p + off, pat, PAGE - off < (size_t)n ? PAGE - off : (size_t)n);
		fill_random(p + start, nrand, seed);
		return;
	}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	if (!n)
		return 0;
	return v[(size_t)(p / 100.0 * (n - 1) + 0.5)];
}

static void usage(void)
{
	fprintf(stderr, "usage: zbench hog -s SIZE [-d mixed|dense|half] [-c CHUNK]\n"
			"       zbench probe -w SIZE [-i INTERVAL_US] [-d mixed|dense|half]\n"
			"       zbench walk -s SIZE [-d DATASET] [-m reread|once] [-g SIGMA] [-w WRITE_PCT] [-l LOG]\n"
			"       zbench calib -s SIZE -n COUNT -C CGROUP_DIR\n"
			"       zbench speed [-n ITERATIONS] [-s SIZE]\n"
			"       zbench dump -s SIZE [-d mixed|dense|half|real]\n");
	exit(2);
}

static double tv(struct timeval a, struct timeval b)
{
	return (b.tv_sec - a.tv_sec) + (b.tv_usec - a.tv_usec) / 1e6;
}

static int do_hog(int argc, char **argv)
{
	unsigned long long size = 0, chunk = 2 << 20;
	enum dataset ds = DS_MIXED;
	unsigned long npages, i, nchunks, ppc;
	uint64_t *clat, t0, t1, tc, seed = 0x9e3779b97f4a7c15ull;
	struct rusage ru0, ru1;
	unsigned char *buf;
	int opt;

	while ((opt = getopt(argc, argv, "s:d:c:")) != -1) {
		switch (opt) {
		case 's': size = parse_size(optarg); break;
		case 'd': ds = parse_ds(optarg); break;
		case 'c': chunk = parse_size(optarg); break;
		default: usage();
		}
	}
	if (!size)
		usage();
	npages = size / PAGE;
	ppc = chunk / PAGE ? chunk / PAGE : 1;
	nchunks = (npages + ppc - 1) / ppc;
	clat = calloc(nchunks, sizeof(*clat));
	buf = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf == MAP_FAILED || !clat) {
		perror("zbench: mmap");
		return 1;
	}
	madvise(buf, npages * PAGE, MADV_NOHUGEPAGE); /* THP swap-out is another path */
	getrusage(RUSAGE_SELF, &ru0);
	t0 = tc = now_ns();
	for (i = 0; i < npages; i++) {
		fill_page(buf + i * PAGE, i, ds, &seed);
		if ((i + 1) % ppc == 0 || i + 1 == npages) {
			uint64_t t = now_ns();
			clat[i / ppc] = t - tc;
			tc = t;
		}
	}
	t1 = now_ns();
	getrusage(RUSAGE_SELF, &ru1);
	uint64_t us = (t1 - t0) / 1000;
	unsigned long long bytes = (unsigned long long)npages * PAGE;
	qsort(clat, nchunks, sizeof(*clat), cmp_u64);
	printf("write.bytes=%llu\nwrite.usecs=%llu\nwrite.kbps=%llu\n", bytes, (unsigned long long)us,
	       (unsigned long long)(us ? bytes * 1000000ull / 1024 / us : 0));
	printf("write.t0_ms=%llu\nwrite.t1_ms=%llu\n", (unsigned long long)(t0 / 1000000),
	       (unsigned long long)(t1 / 1000000));
	printf("write.utime_s=%.3f\nwrite.stime_s=%.3f\nwrite.majflt=%ld\n", tv(ru0.ru_utime, ru1.ru_utime),
	       tv(ru0.ru_stime, ru1.ru_stime), ru1.ru_majflt - ru0.ru_majflt);
	printf("write.chunk_us_p50=%llu\nwrite.chunk_us_p99=%llu\nwrite.chunk_us_max=%llu\n",
	       (unsigned long long)pct(clat, nchunks, 50) / 1000,
	       (unsigned long long)pct(clat, nchunks, 99) / 1000,
	       (unsigned long long)clat[nchunks - 1] / 1000);
	return 0;
}

static volatile sig_atomic_t stop;
static void on_sig(int s) { (void)s; stop = 1; }

static int do_probe(int argc, char **argv)
{
	unsigned long long ws = 0;
	long interval_us = 200;
	enum dataset ds = DS_MIXED;
	unsigned long npages, i;
	size_t cap = 20000000, n = 0;
	uint64_t *lat, seed = 0x1234567ull, over1ms = 0;
	struct rusage ru0, ru1;
	struct timespec iv;
	unsigned char *buf;
	int opt;

	while ((opt = getopt(argc, argv, "w:i:d:")) != -1) {
		switch (opt) {
		case 'w': ws = parse_size(optarg); break;
		case 'i': interval_us = atol(optarg); break;
		case 'd': ds = parse_ds(optarg); break;
		default: usage();
		}
	}
	if (!ws)
		usage();
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	npages = ws / PAGE;
	buf = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	lat = malloc(cap * sizeof(*lat));
	if (buf == MAP_FAILED || !lat) {
		perror("zbench: mmap");
		return 1;
	}
	madvise(buf, npages * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < npages; i++)
		fill_page(buf + i * PAGE, i, ds, &seed);
	iv.tv_sec = interval_us / 1000000;
	iv.tv_nsec = (interval_us % 1000000) * 1000;
	printf("probe.ready=1\n");
	fflush(stdout);
	getrusage(RUSAGE_SELF, &ru0);
	while (!stop && n < cap) {
		unsigned long pg = xs64(&seed) % npages;
		volatile uint64_t *w = (volatile uint64_t *)(buf + pg * PAGE + 64);
		uint64_t a = now_ns(), d;
		*w = *w + 1;
		d = now_ns() - a;
		lat[n++] = d;
		if (d > 1000000)
			over1ms++;
		if (interval_us > 0)
			nanosleep(&iv, NULL);
	}
	getrusage(RUSAGE_SELF, &ru1);
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("probe.samples=%zu\nprobe.p50_us=%.1f\nprobe.p99_us=%.1f\nprobe.p999_us=%.1f\n"
	       "probe.max_us=%.1f\nprobe.over1ms=%llu\nprobe.majflt=%ld\n",
	       n, pct(lat, n, 50) / 1e3, pct(lat, n, 99) / 1e3, pct(lat, n, 99.9) / 1e3,
	       n ? lat[n - 1] / 1e3 : 0.0, (unsigned long long)over1ms, ru1.ru_majflt - ru0.ru_majflt);
	return 0;
}

static unsigned long long fpages(double u, unsigned long npages)
{
	long long i = (long long)u;
	i %= (long long)npages;
	if (i < 0)
		i += npages;
	return (unsigned long long)i;
}

/* standard normal (Box-Muller) from the xorshift generator */
static double gauss(uint64_t *s)
{
	double u1 = ((xs64(s) >> 11) + 1) * (1.0 / 9007199254740993.0);
	double u2 = (xs64(s) >> 11) * (1.0 / 9007199254740992.0);
	return sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2);
}

static int do_walk(int argc, char **argv)
{
	unsigned long long size = 0, ops = 0, last_ops = 0;
	enum dataset ds = DS_REAL;
	int once = 0, write_pct = 20, opt;
	double sigma = 0.2;
	const char *logp = NULL;
	FILE *log = NULL;
	uint64_t seed = 0x9e3779b97f4a7c15ull, t0, tlast, t, hash = 0;
	struct rusage ru0, ru1;
	unsigned long npages, i;
	unsigned char *buf;

	while ((opt = getopt(argc, argv, "s:d:m:g:w:l:")) != -1) {
		switch (opt) {
		case 's': size = parse_size(optarg); break;
		case 'd': ds = parse_ds(optarg); break;
		case 'm': once = !strcmp(optarg, "once"); break;
		case 'g': sigma = atof(optarg); break;
		case 'w': write_pct = atoi(optarg); break;
		case 'l': logp = optarg; break;
		default: usage();
		}
	}
	if (!size)
		usage();
	if (logp && !(log = fopen(logp, "w"))) {
		perror("zbench: -l");
		return 1;
	}
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	npages = size / PAGE;
	buf = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf == MAP_FAILED) {
		perror("zbench: mmap");
		return 1;
	}
	madvise(buf, npages * PAGE, MADV_NOHUGEPAGE);
	getrusage(RUSAGE_SELF, &ru0);
	t0 = tlast = now_ns();
	if (log)
		fprintf(log, "%llu 0 0\n", (unsigned long long)(t0 / 1000000));
	/* fill (both modes), then walk */
	i = 0;
	uint64_t tfill = 0;
	unsigned long long fill_ops = 0; /* pages written by the first fill */
	while (!stop) {
		if (i < npages) {
			fill_page(buf + i * PAGE, i, ds, &seed);
			i++;
			if (!tfill)
				fill_ops++;
			if (i == npages) {
				tfill = now_ns();
				if (once) {
					madvise(buf, npages * PAGE, MADV_DONTNEED);
					i = 0;
				}
			}
		} else {
			unsigned long pg = fpages(npages / 2.0 + gauss(&seed) * sigma * npages, npages);
			const uint64_t *q = (const uint64_t *)(buf + pg * PAGE + ((pg * 7) % 15) * 256);
			for (int k = 0; k < 32; k++)
				hash = (hash ^ q[k]) * 0x100000001b3ull;
			if ((int)(xs64(&seed) % 100) < write_pct)
				((uint64_t *)(buf + pg * PAGE))[((pg * 13) % 64) * 8 + 1] ^= hash;
		}
		ops++;
		if ((ops & 255) == 0 && (t = now_ns()) - tlast >= 500000000ull) {
			if (log) {
				fprintf(log, "%llu %llu %llu\n", (unsigned long long)(t / 1000000), ops, fill_ops);
				fflush(log);
			}
			tlast = t;
			last_ops = ops;
		}
	}
	t = now_ns();
	if (log) {
		fprintf(log, "%llu %llu %llu\n", (unsigned long long)(t / 1000000), ops, fill_ops);
		fclose(log);
	}
	(void)last_ops;
	getrusage(RUSAGE_SELF, &ru1);
	printf("walk.mode=%s\nwalk.ops=%llu\nwalk.secs=%.3f\nwalk.ops_per_s=%.1f\nwalk.fill_ms=%llu\n",
	       once ? "once" : "reread", ops, (t - t0) / 1e9, ops / ((t - t0) / 1e9),
	       tfill ? (unsigned long long)((tfill - t0) / 1000000) : 0ull);
	printf("walk.t0_ms=%llu\nwalk.utime_s=%.3f\nwalk.stime_s=%.3f\nwalk.majflt=%ld\nwalk.hash=%llx\n",
	       (unsigned long long)(t0 / 1000000), tv(ru0.ru_utime, ru1.ru_utime),
	       tv(ru0.ru_stime, ru1.ru_stime), ru1.ru_majflt - ru0.ru_majflt, (unsigned long long)hash);
	return 0;
}

static int do_calib(int argc, char **argv)
{
	unsigned long long size = 0;
	unsigned long npages, count = 1000, n = 0, i;
	const char *cg = NULL;
	uint64_t seed = 0x5eedull, *lat, *idx;
	unsigned char *buf, *vec;
	char path[512];
	int opt;

	while ((opt = getopt(argc, argv, "s:n:C:")) != -1) {
		switch (opt) {
		case 's': size = parse_size(optarg); break;
		case 'n': count = strtoul(optarg, NULL, 10); break;
		case 'C': cg = optarg; break;
		default: usage();
		}
	}
	if (!size || !cg)
		usage();
	npages = size / PAGE;
	buf = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	vec = malloc(npages);
	lat = malloc(count * sizeof(*lat));
	idx = malloc(npages * sizeof(*idx));
	if (buf == MAP_FAILED || !vec || !lat || !idx) {
		perror("zbench: mmap");
		return 1;
	}
	madvise(buf, npages * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < npages; i++)
		fill_page(buf + i * PAGE, i, DS_REAL, &seed);
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	FILE *f = fopen(path, "w");
	if (!f || fputs("max\n", f) < 0 || fclose(f)) {
		perror("zbench: memory.max");
		return 1;
	}
	sleep(1);
	if (mincore(buf, npages * PAGE, vec)) {
		perror("zbench: mincore");
		return 1;
	}
	unsigned long nout = 0;
	for (i = 0; i < npages; i++)
		if (!(vec[i] & 1))
			idx[nout++] = i;
	for (i = nout; i > 1; i--) { /* shuffle */
		unsigned long j = xs64(&seed) % i;
		uint64_t x = idx[i - 1]; idx[i - 1] = idx[j]; idx[j] = x;
	}
	for (i = 0; i < nout && n < count; i++) {
		volatile uint64_t *p = (volatile uint64_t *)(buf + idx[i] * PAGE + 128);
		uint64_t a = now_ns();
		(void)*p;
		lat[n++] = now_ns() - a;
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("calib.out_pages=%lu\ncalib.n=%lu\ncalib.p50_us=%.1f\ncalib.p90_us=%.1f\ncalib.p99_us=%.1f\n",
	       nout, n, pct(lat, n, 50) / 1e3, pct(lat, n, 90) / 1e3, pct(lat, n, 99) / 1e3);
	return 0;
}

/* zbench speed: the guest's speed at this moment, CPU and page faults (see the top) */
static int do_speed(int argc, char **argv)
{
	unsigned long long iters = 20000000ull, size = 32ull << 20;
	uint64_t seed = 0x9e3779b97f4a7c15ull, t0, t1, t2;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:")) != -1) {
		switch (opt) {
		case 'n': iters = parse_size(optarg); break;
		case 's': size = parse_size(optarg); break;
		default: usage();
		}
	}
	if (!iters || size < PAGE)
		usage();
	t0 = now_ns();
	for (unsigned long long i = 0; i < iters; i++)
		xs64(&seed);
	t1 = now_ns();
	for (int round = 0; round < 4; round++) {
		unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("zbench speed: mmap");
			return 1;
		}
		for (unsigned long long off = 0; off < size; off += PAGE)
			p[off] = (unsigned char)(seed >> (off % 56));
		munmap(p, size);
	}
	t2 = now_ns();
	/* the seed is printed so that the loop cannot be optimised away */
	printf("speed.cpu_ms=%llu speed.fault_ms=%llu speed.check=%llx\n", (unsigned long long)((t1 - t0) / 1000000),
	       (unsigned long long)((t2 - t1) / 1000000), (unsigned long long)(seed & 0xff));
	return 0;
}

/* zbench dump -s SIZE -d DATASET: the hog's page contents on stdout (to check compressibility) */
static int do_dump(int argc, char **argv)
{
	unsigned long long size = 0;
	enum dataset ds = DS_MIXED;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	static unsigned char pg[PAGE];
	int opt;

	while ((opt = getopt(argc, argv, "s:d:")) != -1) {
		switch (opt) {
		case 's': size = parse_size(optarg); break;
		case 'd': ds = parse_ds(optarg); break;
		default: usage();
		}
	}
	for (unsigned long i = 0; i < size / PAGE; i++) {
		fill_page(pg, i, ds, &seed);
		if (fwrite(pg, PAGE, 1, stdout) != 1)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "dump"))
		return do_dump(argc - 1, argv + 1);
	if (!strcmp(argv[1], "hog"))
		return do_hog(argc - 1, argv + 1);
	if (!strcmp(argv[1], "probe"))
		return do_probe(argc - 1, argv + 1);
	if (!strcmp(argv[1], "walk"))
		return do_walk(argc - 1, argv + 1);
	if (!strcmp(argv[1], "calib"))
		return do_calib(argc - 1, argv + 1);
	if (!strcmp(argv[1], "speed"))
		return do_speed(argc - 1, argv + 1);
	usage();
	return 2;
}
