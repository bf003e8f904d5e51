/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Cgroups= patterns: a cgroup path with shell globs per path component
 * (fnmatch(3) with FNM_PATHNAME: "*", "?", "[...]"), relative to the cgroup2
 * mount or absolute below /sys/fs/cgroup. A plain path is a pattern without
 * glob characters. Pure, but for cglob_own_cgroup(). */

#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"

#define CGLOB_MAX_DEPTH 32

struct cglob {
        char *text;                     /* as configured */
        char *rel;                      /* below the mount: no leading or trailing '/'; "" = the root cgroup */
        bool absolute;                  /* written below /sys/fs/cgroup (else: below the v2 mount found at run time) */
        char *store;                    /* rel split at its '/' */
        char *comp[CGLOB_MAX_DEPTH];    /* the components of rel (pointers into store) */
        unsigned n;
        unsigned literal;               /* leading components without glob characters */
};

/* Has s a glob character ('*', '?' or '[')? */
bool cglob_has_magic(const char *s);
/* Parse a Cgroups= entry. NULL on success (free with cglob_free()), else why
 * it is refused, a static string to follow "Cgroups= pattern 'X' ": empty
 * components, "." or "..", an absolute path not below /sys/fs/cgroup, a
 * component longer than NAME_MAX, a path longer than PATH_MAX allows, an
 * unclosed '[', more than CGLOB_MAX_DEPTH components: refused, never truncated. */
const char *cglob_parse(struct cglob *g, const char *pattern);
void cglob_free(struct cglob *g);
/* Does the pattern take the cgroup rel (below the mount, "" = root)? */
bool cglob_match(const struct cglob *g, const char *rel);
/* Does a directory at depth d (rel has d components) lead to matches, that is
 * do its components match the pattern's first d, with d < n? */
bool cglob_match_parent(const struct cglob *g, const char *rel);
/* Would the pattern take the root cgroup, init.scope or own (the daemon's
 * cgroup below the mount, NULL if unknown)? NULL if not, else a static text. */
const char *cglob_forbidden(const struct cglob *g, const char *own);
/* The directories a pattern needs watched: the parent at this depth (its
 * literal prefix, at most n-1 components) and, below it, every directory
 * that cglob_match_parent() takes; the levels where a glob component sits
 * then get new entries noticed. */
unsigned cglob_watch_depth(const struct cglob *g);
/* Write to buf the literal prefix at depth d <= g->literal ("" for 0). */
int cglob_prefix(const struct cglob *g, unsigned d, char *buf, size_t size);

/* The daemon's own cgroup below the v2 mount ("system.slice/zswap-tuned.service";
 * "" = the root), from /proc/self/cgroup under the kernel's root prefix.
 * -ENOENT/-ENODATA when it has no v2 line. */
int cglob_own_cgroup(const struct kernel *k, char *buf, size_t size);
/* Parse a /proc/self/cgroup: the "0::/path" line, without its leading '/'. Pure. */
int parse_own_cgroup(const char *text, char *buf, size_t size);
