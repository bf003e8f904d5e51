// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zsample - time-series sampler for the zswap-tuned benchmark (runs in the guest;
 * built static on the host). Adapted from the shared qemu test bed's zctl, without
 * the controller: here the knob is static or driven by zswap-tuned itself.
 *
 *   zsample [-i MS] -o LOG [-P PROBE_CGROUP_DIR] [-H HOG_CGROUP_DIR] [-D ZSWAP_DEBUGFS_DIR]
 *
 * Every MS milliseconds (default 100) appends one line to LOG:
 *   t_ms pool_kB zswapped_kB limit_kB knob zswpout zswpwb pswpout pswpin
 *        psi_sys_us psi_probe_us psi_hog_us hog_zswap_kB hog_zswpwb hog_zswpout
 *        hog_zswap_max_kB zswpin probe_zswap_kB cpu_psi_probe_us cpu_psi_hog_us
 *        pool_limit_hit reject_sum
 * t_ms is CLOCK_MONOTONIC in ms; pool_kB/zswapped_kB are /proc/meminfo Zswap:/Zswapped:;
 * limit_kB = MemTotal * max_pool_percent / 100; knob is shrinker_enabled (1 = Y);
 * the vmstat columns are cumulative; psi_* are the cumulative "some" totals (us) of
 * /proc/pressure/memory and the cgroups' memory.pressure; hog_* come from the hog
 * cgroup's memory.zswap.current and memory.stat (-1 when absent); hog_zswap_max_kB is its
 * memory.zswap.max (-1 = "max" or absent), i.e. the batch cap as set by a static setting or
 * the daemon. The "probe" is the latency-sensitive cgroup (the service), "hog" the batch one.
 * probe_zswap_kB is the service cgroup's memory.zswap.current (its share of the pool);
 * cpu_psi_* the cumulative "some" totals (us) of the cgroups' cpu.pressure; pool_limit_hit
 * and reject_sum (the sum of every reject_* counter) come from the zswap debugfs directory
 * given with -D (-1 when it is not mounted or not readable).
 * Runs until SIGTERM/SIGINT.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PARAM "/sys/module/zswap/parameters/"

static volatile sig_atomic_t stop;
static void on_sig(int s) { (void)s; stop = 1; }

static int slurp(const char *path, char *buf, size_t sz)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sz - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* "Key: value" or "key value" lines */
static long long key(const char *buf, const char *k)
{
	size_t kl = strlen(k);
	for (const char *l = buf; l && *l; ) {
		if (!strncmp(l, k, kl) && (l[kl] == ':' || l[kl] == ' '))
			return atoll(l + kl + 1 + (l[kl] == ':'));
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return -1;
}

/* the sum of the reject_* counters in the zswap debugfs directory, -1 when unreadable */
static long long debugfs_rejects(const char *dir)
{
	char path[512], b[64];
	long long sum = -1;
	DIR *d;
	struct dirent *e;

	if (!dir || !(d = opendir(dir)))
		return -1;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "reject_", 7))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!slurp(path, b, sizeof(b)))
			sum = (sum < 0 ? 0 : sum) + atoll(b);
	}
	closedir(d);
	return sum;
}

static long long psi_some_total(const char *path)
{
	char b[512];
	const char *p;
	if (!path || slurp(path, b, sizeof(b)) || !(p = strstr(b, "total=")))
		return -1;
	return atoll(p + 6);
}

int main(int argc, char **argv)
{
	int ms = 100, opt;
	const char *logp = NULL, *probe = NULL, *hog = NULL, *dbg = NULL;
	char probe_psi[512] = "", hog_psi[512] = "", hog_zc[512] = "", hog_stat[512] = "", hog_zm[512] = "";
	char probe_zc[512] = "", probe_cpu[512] = "", hog_cpu[512] = "", dbg_hit[512] = "";
	static char buf[65536];
	FILE *log;

	while ((opt = getopt(argc, argv, "i:o:P:H:D:")) != -1) {
		switch (opt) {
		case 'i': ms = atoi(optarg); break;
		case 'o': logp = optarg; break;
		case 'P': probe = optarg; break;
		case 'H': hog = optarg; break;
		case 'D': dbg = optarg; break;
		default:
			fprintf(stderr, "usage: zsample [-i MS] -o LOG [-P PROBE_CG] [-H HOG_CG] [-D ZSWAP_DEBUGFS]\n");
			return 2;
		}
	}
	if (!logp || !(log = fopen(logp, "w"))) {
		perror("zsample: -o");
		return 1;
	}
	if (probe) {
		snprintf(probe_psi, sizeof(probe_psi), "%s/memory.pressure", probe);
		snprintf(probe_zc, sizeof(probe_zc), "%s/memory.zswap.current", probe);
		snprintf(probe_cpu, sizeof(probe_cpu), "%s/cpu.pressure", probe);
	}
	if (hog)
		snprintf(hog_cpu, sizeof(hog_cpu), "%s/cpu.pressure", hog);
	if (dbg)
		snprintf(dbg_hit, sizeof(dbg_hit), "%s/pool_limit_hit", dbg);
	if (hog) {
		snprintf(hog_psi, sizeof(hog_psi), "%s/memory.pressure", hog);
		snprintf(hog_zc, sizeof(hog_zc), "%s/memory.zswap.current", hog);
		snprintf(hog_stat, sizeof(hog_stat), "%s/memory.stat", hog);
		snprintf(hog_zm, sizeof(hog_zm), "%s/memory.zswap.max", hog);
	}
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	struct timespec iv = { ms / 1000, (ms % 1000) * 1000000L };
	while (!stop) {
		struct timespec ts;
		long long memtotal = -1, pool = -1, zswapped = -1, pct = -1, knob = -1;
		long long zo = -1, zw = -1, po = -1, pi = -1, hz = -1, hw = -1, ho = -1, hm = -1, zi = -1;
		long long pz = -1, plh = -1;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (!slurp("/proc/meminfo", buf, sizeof(buf))) {
			memtotal = key(buf, "MemTotal");
			pool = key(buf, "Zswap");
			zswapped = key(buf, "Zswapped");
		}
		if (!slurp(PARAM "max_pool_percent", buf, sizeof(buf)))
			pct = atoll(buf);
		if (!slurp(PARAM "shrinker_enabled", buf, sizeof(buf)))
			knob = buf[0] == 'Y';
		if (!slurp("/proc/vmstat", buf, sizeof(buf))) {
			zo = key(buf, "zswpout");
			zw = key(buf, "zswpwb");
			po = key(buf, "pswpout");
			pi = key(buf, "pswpin");
			zi = key(buf, "zswpin");
		}
		if (hog && !slurp(hog_zc, buf, sizeof(buf)))
			hz = atoll(buf) / 1024;
		if (probe && !slurp(probe_zc, buf, sizeof(buf)))
			pz = atoll(buf) / 1024;
		if (dbg && !slurp(dbg_hit, buf, sizeof(buf)))
			plh = atoll(buf);
		if (hog && !slurp(hog_zm, buf, sizeof(buf)) && buf[0] != 'm')
			hm = atoll(buf) / 1024;
		if (hog && !slurp(hog_stat, buf, sizeof(buf))) {
			hw = key(buf, "zswpwb");
			ho = key(buf, "zswpout");
		}
		fprintf(log, "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld"
			" %lld %lld %lld %lld %lld\n",
			(long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, pool, zswapped,
			memtotal >= 0 && pct >= 0 ? memtotal * pct / 100 : -1, knob, zo, zw, po, pi,
			psi_some_total("/proc/pressure/memory"), psi_some_total(probe ? probe_psi : NULL),
			psi_some_total(hog ? hog_psi : NULL), hz, hw, ho, hm, zi,
			pz, psi_some_total(probe ? probe_cpu : NULL), psi_some_total(hog ? hog_cpu : NULL),
			plh, debugfs_rejects(dbg));
		fflush(log);
		nanosleep(&iv, NULL);
	}
	fclose(log);
	return 0;
}
