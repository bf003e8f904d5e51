/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdint.h>

#include "log.h"
#include "exit-code.h"
#include "probe.h"
#include "psi.h"
#include "snapshot.h"
#include "util.h"

int probe_required(const struct kernel *k) {
        uint64_t total;
        int r = psi_read_total(k, PSI_SYSTEM_MEMORY, PSI_SOME, &total);

        if (r < 0) {
                log_error("PSI is not available (" PSI_SYSTEM_MEMORY ": %s): boot with psi=1 "
                          "(CONFIG_PSI_DEFAULT_DISABLED kernels) or use a kernel with CONFIG_PSI", err_str(r));
                return EXIT_UNAVAILABLE;
        }
        if (!kernel_exists(k, ZSWAP_PARAMS)) {
                log_error("zswap is not available: " ZSWAP_PARAMS " does not exist (kernel without CONFIG_ZSWAP)");
                return EXIT_UNAVAILABLE;
        }
        return 0;
}

unsigned probe_report(const struct kernel *k) {
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_STARTUP_WARNING, NULL };
        struct pool_sample p;
        char lim[32], comp[64] = "", buf[4096];
        ssize_t n;
        int r = kernel_read_pool(k, &p);

        if (r < 0)
                log_warning("zswap: cannot read the pool size: %s", err_str(r));
        else {
                n = kernel_read(k, ZSWAP_PARAMS "/compressor", comp, sizeof(comp));
                log_fields(p.enabled ? LOG_INFO : LOG_NOTICE, p.enabled ? NULL : fields,
                           "zswap: %s%s%s, max_pool_percent=%u (limit %s)%s", p.enabled ? "enabled" : "disabled",
                           n > 0 ? ", compressor " : "", n > 0 ? strstrip(comp) : "", p.max_pool_percent,
                           format_bytes(lim, sizeof(lim), p.limit_bytes),
                           p.enabled ? "" : "; nothing is stored until it is enabled, watching anyway");
        }
        log_info("debugfs: " ZSWAP_DEBUGFS " %s", kernel_exists(k, ZSWAP_DEBUGFS "/pool_total_size")
                                                         ? "available (extra detail only)"
                                                         : "not available (optional; /proc/meminfo is used)");
        if (kernel_read(k, "/proc/self/cgroup", buf, sizeof(buf)) > 0 && parse_cgroup_memory_v1(buf)) {
                log_fields(LOG_WARNING, fields,
                           "Memory controller is on cgroup v1: the zswap shrinker writes nothing back there, "
                           "so flips have no effect (the pool limit still applies)");
                return WARN_CGROUP_V1;
        }
        return 0;
}

int probe_writeback(const struct kernel *k, bool wanted) {
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_STARTUP_WARNING, NULL };
        int r = kernel_writeback_probe(k);

        if (r > 0) {
                log_info("memory.zswap.writeback: available (per-cgroup writeback protection: [Pressure] "
                         "ProtectWriteback=%s)", wanted ? "yes" : "no");
                return 1;
        }
        if (wanted)
                log_fields(LOG_NOTICE, fields, "[Pressure] ProtectWriteback=yes, but %s: no cgroup's writeback is "
                           "ever changed",
                           r == 0 ? "this kernel has no memory.zswap.writeback (Linux 6.8 or later)"
                                  : "no cgroup has memory.zswap.* (cgroup v1, or no memory controller on cgroup v2)");
        return 0;
}
