/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup-glob.c: a Cgroups= pattern parsed (cglob_parse(), with its
 * refusals), the refusals of what it must never take (cglob_forbidden()),
 * and matched against arbitrary cgroup paths (cglob_match(),
 * cglob_match_parent(), the literal prefix the follower watches), plus
 * parse_own_cgroup().
 *
 * The input: the first line is the pattern, the second the daemon's own
 * cgroup (below the mount), every further line a cgroup path (below the
 * mount) to match. What is checked holds for any input; the refusals and the
 * matches are compared with code of the harness's own: the whole path
 * against the whole pattern with fnmatch(3) and FNM_PATHNAME, which the
 * component-wise matching must agree with. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>

#include "cgroup-glob.h"
#include "fuzz.h"

#define ROOT "/sys/fs/cgroup"
#define MAX_PATHS 64

/* The components of s (split at '/'), counted; *shape: one is empty or
 * longer than NAME_MAX; *dots: one is "." or "..". */
static unsigned components(const char *s, bool *shape, bool *dots) {
        unsigned n = 0;
        const char *p = s;

        *shape = *dots = false;
        for (;;) {
                size_t l = strcspn(p, "/");

                if (l == 0 || l > NAME_MAX)
                        *shape = true;
                if ((l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
                        *dots = true;
                n++;
                if (!p[l])
                        return n;
                p += l + 1;
        }
}

/* The pattern below the mount, as the harness reads it: without the
 * absolute prefix and the slashes around it. NULL when absolute elsewhere. */
static char *expected_rel(const char *pattern, bool *absolute) {
        const char *s = pattern;
        size_t len;

        *absolute = *s == '/';
        if (*absolute) {
                if (strcmp(s, ROOT) != 0 && strncmp(s, ROOT "/", strlen(ROOT) + 1) != 0)
                        return NULL;
                s += strlen(ROOT);
                s += strspn(s, "/");
        }
        len = strlen(s);
        while (len > 0 && s[len - 1] == '/')
                len--;
        return strndup(s, len);
}

/* Scans rel's brackets as cgroup-glob.c must: does some component have a
 * '[' that fnmatch's rules leave open (a bracket's first member may be ']',
 * also after '!' or '^'), or a "[:", "[=" or "[." inside brackets? */
static void brackets(const char *rel, bool *open, bool *class_expr) {
        bool in = false;
        size_t first = 0;

        *open = *class_expr = false;
        for (size_t i = 0; rel[i]; i++) {
                char c = rel[i];

                if (c == '/') {
                        if (in)
                                *open = true;
                        in = false;
                        continue;
                }
                if (!in) {
                        if (c == '\\' && rel[i + 1] && rel[i + 1] != '/')
                                i++;
                        else if (c == '[') {
                                in = true;
                                first = i + 1;
                                if (rel[first] == '!' || rel[first] == '^')
                                        first++;
                        }
                } else if (c == ']' && i > first)
                        in = false;
                else if (c == '[' && (rel[i + 1] == ':' || rel[i + 1] == '=' || rel[i + 1] == '.'))
                        *class_expr = true;
        }
        if (in)
                *open = true;
}

static bool open_bracket(const char *rel) {
        bool open, class_expr;

        brackets(rel, &open, &class_expr);
        return open;
}

static bool class_expression(const char *rel) {
        bool open, class_expr;

        brackets(rel, &open, &class_expr);
        return class_expr;
}

static void check_refusal(const char *pattern, const char *why) {
        bool absolute, shape, dots;
        char *rel = expected_rel(pattern, &absolute);

        /* each refusal for what it says */
        if (strcmp(why, "is empty") == 0)
                FUZZ_ASSERT(!*pattern);
        else if (strstr(why, "is absolute but not below"))
                FUZZ_ASSERT(absolute && !rel);
        else {
                FUZZ_ASSERT(rel && *rel);
                if (strstr(why, "PATH_MAX"))
                        FUZZ_ASSERT(strlen(rel) + strlen("/sys/fs/cgroup/unified/") + strlen("/memory.zswap.current") >=
                                    PATH_MAX);
                else if (strstr(why, "too many components"))
                        FUZZ_ASSERT(components(rel, &shape, &dots) > CGLOB_MAX_DEPTH);
                else if (strstr(why, "'['"))
                        FUZZ_ASSERT(open_bracket(rel));
                else if (strstr(why, "[:class:]"))
                        FUZZ_ASSERT(class_expression(rel));
                else {
                        FUZZ_ASSERT(strstr(why, "empty component") || strstr(why, "'..'") || strstr(why, "'.'") ||
                                    strstr(why, "NAME_MAX"));
                        components(rel, &shape, &dots);
                        FUZZ_ASSERT(shape || dots);
                }
        }
        free(rel);
}

/* What was accepted is what the harness reads in the pattern. */
static void check_parsed(const struct cglob *g, const char *pattern) {
        bool absolute, shape = false, dots = false;
        char *rel = expected_rel(pattern, &absolute);
        char buf[PATH_MAX];
        size_t off = 0;

        FUZZ_ASSERT(rel);
        FUZZ_ASSERT(g->absolute == absolute);
        FUZZ_ASSERT(strcmp(g->rel, rel) == 0);
        FUZZ_ASSERT(strcmp(g->text, pattern) == 0);
        FUZZ_ASSERT(g->n == (*rel ? components(rel, &shape, &dots) : 0));
        FUZZ_ASSERT(!shape && !dots && g->n <= CGLOB_MAX_DEPTH);
        FUZZ_ASSERT(!open_bracket(rel));
        FUZZ_ASSERT(!class_expression(rel));
        FUZZ_ASSERT(strlen(rel) + strlen("/sys/fs/cgroup/unified/") + strlen("/memory.zswap.current") < PATH_MAX);
        FUZZ_ASSERT(g->literal <= g->n);
        for (unsigned i = 0; i < g->n; i++) {
                const char *c = g->comp[i];

                FUZZ_ASSERT(*c && !strchr(c, '/') && strlen(c) <= NAME_MAX);
                FUZZ_ASSERT(strcmp(c, ".") != 0 && strcmp(c, "..") != 0);
                /* the components are rel again */
                FUZZ_ASSERT(strncmp(rel + off, c, strlen(c)) == 0);
                off += strlen(c);
                FUZZ_ASSERT(rel[off] == (i + 1 < g->n ? '/' : '\0'));
                off++;
                /* literal: the leading components without a glob character */
                FUZZ_ASSERT(cglob_has_magic(c) == (strpbrk(c, "*?[") != NULL));
                if (i < g->literal)
                        FUZZ_ASSERT(!cglob_has_magic(c));
                else if (i == g->literal)
                        FUZZ_ASSERT(cglob_has_magic(c));
        }
        if (g->n > 0) {
                unsigned w = cglob_watch_depth(g);
                FUZZ_ASSERT(w <= g->literal && w < g->n);
        }
        for (unsigned d = 0; d <= g->literal; d++) {
                FUZZ_ASSERT(cglob_prefix(g, d, buf, sizeof(buf)) == 0);
                FUZZ_ASSERT(strlen(buf) <= strlen(rel));
                FUZZ_ASSERT(strncmp(buf, rel, strlen(buf)) == 0);
                FUZZ_ASSERT(d == 0 ? !*buf : rel[strlen(buf)] == '/' || rel[strlen(buf)] == '\0');
        }
        FUZZ_ASSERT(cglob_prefix(g, g->literal + 1, buf, sizeof(buf)) == -EINVAL);
        free(rel);
}

/* path (below the mount) against the parsed pattern. */
static void check_path(const struct cglob *g, const char *path) {
        bool shape = false, dots = false, m = cglob_match(g, path);
        unsigned n = *path ? components(path, &shape, &dots) : 0;
        char prefix[PATH_MAX];

        if (m) {
                /* exactly as many components as the pattern, each a
                 * possible name (readdir() never gives "." or ".." here) */
                FUZZ_ASSERT(n == g->n && !shape);
                /* the follower walks down to it: every ancestor below the
                 * mount leads to matches */
                if (g->n > 0)
                        FUZZ_ASSERT(cglob_match_parent(g, ""));
                for (const char *s = path; (s = strchr(s, '/')); s++) {
                        memcpy(prefix, path, (size_t) (s - path));
                        prefix[s - path] = '\0';
                        FUZZ_ASSERT(cglob_match_parent(g, prefix));
                }
                /* the literal prefix the follower watches leads to it, but
                 * for backslashes, which fnmatch() takes as escapes */
                if (!strchr(g->rel, '\\') && g->literal > 0) {
                        FUZZ_ASSERT(cglob_prefix(g, g->literal, prefix, sizeof(prefix)) == 0);
                        FUZZ_ASSERT(strncmp(path, prefix, strlen(prefix)) == 0);
                        FUZZ_ASSERT(path[strlen(prefix)] == '/' || path[strlen(prefix)] == '\0');
                }
        }
        if (cglob_match_parent(g, path))
                FUZZ_ASSERT(n < g->n);
        /* the whole path against the whole pattern: a glob never crosses a
         * '/'. "" is the root, no component (fnmatch() takes "" for a star);
         * an empty component or one longer than NAME_MAX is never taken
         * (fnmatch() takes "a/" for "a/" and a star) */
        if (!*path)
                FUZZ_ASSERT(m == (g->n == 0));
        else if (!strchr(g->rel, '\\') && !shape)
                FUZZ_ASSERT(m == (fnmatch(g->rel, path, FNM_PATHNAME) == 0));
        /* a pattern without glob characters or escapes takes itself alone */
        if (!cglob_has_magic(g->rel) && !strchr(g->rel, '\\'))
                FUZZ_ASSERT(m == (strcmp(path, g->rel) == 0));
}

static void check_forbidden(const struct cglob *g, const char *own) {
        const char *why = cglob_forbidden(g, own);

        if (why)
                return;
        /* never the root cgroup, init.scope (PID 1) or the daemon's own cgroup */
        FUZZ_ASSERT(g->n > 0);
        FUZZ_ASSERT(!cglob_match(g, ""));
        FUZZ_ASSERT(!cglob_match(g, "init.scope"));
        if (own && *own)
                FUZZ_ASSERT(!cglob_match(g, own));
        if (g->absolute) {
                /* /sys/fs/cgroup/unified: the v2 root on a hybrid system */
                FUZZ_ASSERT(!cglob_match(g, "unified"));
                FUZZ_ASSERT(!cglob_match(g, "unified/init.scope"));
        }
}

/* parse_own_cgroup() on the whole input: the first "0::/" line, without its
 * leading and trailing '/'. */
static void check_own(const char *s) {
        char buf[64], want[64];
        const char *l = s;
        int r = parse_own_cgroup(s, buf, sizeof(buf));

        while (l && strncmp(l, "0::/", 4) != 0)
                l = strchr(l, '\n'), l = l ? l + 1 : NULL;
        if (!l) {
                FUZZ_ASSERT(r == -ENODATA);
                return;
        }
        l += 4;
        size_t n = strcspn(l, "\n");
        while (n > 0 && l[n - 1] == '/')
                n--;
        if (n >= sizeof(want)) {
                FUZZ_ASSERT(r == -ENAMETOOLONG);
                return;
        }
        memcpy(want, l, n);
        want[n] = '\0';
        FUZZ_ASSERT(r == 0 && strcmp(buf, want) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size), *save = NULL, *pattern, *own, *path;
        struct cglob g;
        const char *why;
        unsigned paths = 0;

        fuzz_quiet();
        check_own(s);
        /* strsep, not strtok: empty lines are inputs too */
        save = s;
        pattern = strsep(&save, "\n");
        own = save ? strsep(&save, "\n") : NULL;
        why = cglob_parse(&g, pattern);
        if (why) {
                check_refusal(pattern, why);
                /* nothing kept */
                FUZZ_ASSERT(!g.text && !g.rel && !g.store && g.n == 0);
                free(s);
                return 0;
        }
        check_parsed(&g, pattern);
        check_forbidden(&g, own);
        check_forbidden(&g, NULL);
        check_path(&g, g.rel);
        check_path(&g, "");
        check_path(&g, "init.scope");
        if (own)
                check_path(&g, own);
        while (save && paths++ < MAX_PATHS) {
                path = strsep(&save, "\n");
                check_path(&g, path);
        }
        cglob_free(&g);
        FUZZ_ASSERT(!g.text && !g.rel && !g.store && g.n == 0);
        free(s);
        return 0;
}
