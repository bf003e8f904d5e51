/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-glob.h"
#include "util.h"

/* The longest mount prefix and file name that get put around rel. */
#define MOUNT_MAX_PREFIX (sizeof("/sys/fs/cgroup/unified/") - 1)
#define FILE_MAX_SUFFIX (sizeof("/memory.zswap.current") - 1)

bool cglob_has_magic(const char *s) {
        return strpbrk(s, "*?[") != NULL;
}

/* What is wrong with the component's brackets, NULL if nothing: a '['
 * not closed by a ']' (fnmatch's rules: a ']' right after '[' or "[!" is a
 * member), or a "[:class:]", "[=c=]" or "[.c.]" inside brackets. The latter
 * are refused outright: fnmatch() reads them by rules of its own (an unknown
 * class name, a class left open), so that the brackets could end past a '/'
 * and the pattern mean one thing as a whole and another component by
 * component. Cgroup names need none of them: list the characters. */
static const char *brackets_problem(const char *c) {
        for (const char *p = c; *p; p++) {
                if (*p == '\\' && p[1]) {
                        p++;
                        continue;
                }
                if (*p != '[')
                        continue;
                const char *q = p + 1;
                if (*q == '!' || *q == '^')
                        q++;
                if (*q == ']')
                        q++;
                for (; *q && *q != ']'; q++)
                        if (*q == '[' && (q[1] == ':' || q[1] == '=' || q[1] == '.'))
                                return "has a [:class:], [=c=] or [.c.] expression (list the characters instead)";
                if (!*q)
                        return "has a '[' without its ']'";
                p = q;
        }
        return NULL;
}

void cglob_free(struct cglob *g) {
        free(g->text);
        free(g->rel);
        free(g->store);
        *g = (struct cglob) { 0 };
}

const char *cglob_parse(struct cglob *g, const char *pattern) {
        const char *s = pattern;
        size_t len;
        char *p;

        *g = (struct cglob) { 0 };
        if (!*s)
                return "is empty";
        if (*s == '/') {
                if (strncmp(s, CGROUP_ROOT "/", sizeof(CGROUP_ROOT)) != 0 && strcmp(s, CGROUP_ROOT) != 0)
                        return "is absolute but not below " CGROUP_ROOT;
                s += sizeof(CGROUP_ROOT) - 1;
                while (*s == '/')
                        s++;
                g->absolute = true;
        }
        len = strlen(s);
        while (len > 0 && s[len - 1] == '/')
                len--;
        if (len + MOUNT_MAX_PREFIX + FILE_MAX_SUFFIX >= PATH_MAX)
                return "is longer than a cgroup path can be (PATH_MAX)";
        g->text = strdup(pattern);
        g->rel = strndup(s, len);
        g->store = strndup(s, len);
        if (!g->text || !g->rel || !g->store) {
                cglob_free(g);
                return "cannot be stored (out of memory)";
        }
        if (!*g->rel)
                return NULL; /* the root: cglob_forbidden() says no */
        p = g->store;
        for (;;) {
                char *slash = strchr(p, '/');
                const char *why = NULL;

                if (slash)
                        *slash = '\0';
                if (!*p)
                        why = "must not contain an empty component";
                else if (strcmp(p, "..") == 0)
                        why = "must not contain a '..' component";
                else if (strcmp(p, ".") == 0)
                        why = "must not contain a '.' component";
                else if (strlen(p) > NAME_MAX)
                        why = "has a component longer than NAME_MAX";
                else if (g->n >= CGLOB_MAX_DEPTH)
                        why = "has too many components";
                else
                        why = brackets_problem(p);
                if (why) {
                        cglob_free(g);
                        return why;
                }
                if (g->literal == g->n && !cglob_has_magic(p))
                        g->literal++;
                g->comp[g->n++] = p;
                if (!slash)
                        break;
                p = slash + 1;
        }
        return NULL;
}

/* Do rel's components (exactly want of them) match the pattern's first want? */
static bool match_components(const struct cglob *g, const char *rel, unsigned want) {
        unsigned i = 0;
        const char *p = rel;
        char name[NAME_MAX + 1];

        if (!*rel)
                return want == 0;
        for (;;) {
                const char *slash = strchr(p, '/');
                size_t l = slash ? (size_t) (slash - p) : strlen(p);

                if (i >= want || i >= g->n || l == 0 || l > NAME_MAX)
                        return false;
                memcpy(name, p, l);
                name[l] = '\0';
                if (fnmatch(g->comp[i], name, FNM_PATHNAME) != 0)
                        return false;
                i++;
                if (!slash)
                        break;
                p = slash + 1;
        }
        return i == want;
}

static unsigned depth_of(const char *rel) {
        unsigned d = *rel ? 1 : 0;

        for (const char *p = rel; *p; p++)
                d += *p == '/';
        return d;
}

bool cglob_match(const struct cglob *g, const char *rel) {
        return match_components(g, rel, g->n);
}

bool cglob_match_parent(const struct cglob *g, const char *rel) {
        unsigned d = depth_of(rel);

        return d < g->n && match_components(g, rel, d);
}

const char *cglob_forbidden(const struct cglob *g, const char *own) {
        /* below /sys/fs/cgroup, "unified" is the root of a hybrid system,
         * taken by a glob ("unified*", "u?ified") as much as by its name */
        if (g->n == 0 || (g->absolute && cglob_match(g, "unified")))
                return "takes the root cgroup";
        if (cglob_match(g, "init.scope") || (g->absolute && cglob_match(g, "unified/init.scope")))
                return "takes init.scope (PID 1)";
        if (own && *own && cglob_match(g, own))
                return "takes the daemon's own cgroup";
        return NULL;
}

unsigned cglob_watch_depth(const struct cglob *g) {
        return g->literal < g->n ? g->literal : g->n - 1;
}

int cglob_prefix(const struct cglob *g, unsigned d, char *buf, size_t size) {
        size_t len = 0;

        if (d > g->literal || d > g->n)
                return -EINVAL;
        buf[0] = '\0';
        for (unsigned i = 0; i < d; i++) {
                int w = snprintf(buf + len, size - len, "%s%s", i ? "/" : "", g->comp[i]);
                if (w < 0 || (size_t) w >= size - len)
                        return -ENAMETOOLONG;
                len += (size_t) w;
        }
        return 0;
}

int parse_own_cgroup(const char *text, char *buf, size_t size) {
        for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                const char *end;
                size_t n;

                if (strncmp(l, "0::/", 4) != 0)
                        continue;
                l += 4;
                end = strchr(l, '\n');
                n = end ? (size_t) (end - l) : strlen(l);
                while (n > 0 && l[n - 1] == '/')
                        n--;
                if (n >= size)
                        return -ENAMETOOLONG;
                memcpy(buf, l, n);
                buf[n] = '\0';
                return 0;
        }
        return -ENODATA;
}

int cglob_own_cgroup(const struct kernel *k, char *buf, size_t size) {
        char text[4096];
        ssize_t n = kernel_read(k, "/proc/self/cgroup", text, sizeof(text));

        if (n < 0)
                return (int) n;
        return parse_own_cgroup(text, buf, size);
}
