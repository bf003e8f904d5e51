#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/: the Grafana dashboard and the Prometheus alerting rules use only
# metrics the daemon exports, across hosts ($instance); the rules pass
# "promtool check rules" and their unit tests ("promtool test rules
# tests/prometheus/zswap-tuned.rules.test.yml"); every dashboard query
# parses as PromQL (promtool, as recording rules). Without promtool (Debian
# package prometheus) those cases skip, and fail under CI=true.
set -u
export LC_ALL=C
. "$(dirname "$0")/lib.sh"

DASH=$abs_top_srcdir/contrib/grafana/zswap-tuned.json
RULES=$abs_top_srcdir/contrib/prometheus/zswap-tuned.rules.yml
RULES_TEST=$abs_top_srcdir/tests/prometheus/zswap-tuned.rules.test.yml
W=$(mktemp -d /tmp/zswap-tuned-contrib.XXXXXX)
trap 'rm -rf "$W"' EXIT

# The metric names daemon/publish.c writes, and those the metrics rework
# (issue 26, item 1) adds: drop a name from PENDING once publish.c has it.
PENDING=""
grep -oE 'zswap_tuned_[a-z_]+' "$abs_top_srcdir/daemon/publish.c" | grep -vx zswap_tuned_ >"$W/known"
[ -z "$PENDING" ] || tr ' ' '\n' <<<"$PENDING" >>"$W/known"
sort -u -o "$W/known" "$W/known"

# The dashboard's queries, one per line.
python3 - "$DASH" >"$W/exprs" <<'PY' || { echo "Bail out! $DASH is not a dashboard"; exit 99; }
import json, sys
d = json.load(open(sys.argv[1]))
def walk(panels):
    for p in panels:
        yield from walk(p.get("panels", []))
        for t in p.get("targets", []):
            yield t["expr"]
for e in walk(d["panels"]):
    print(e.replace("\n", " "))
PY

only_known() { # FILE: every zswap_tuned_* name in it is known
	local bad
	bad=$(grep -oE 'zswap_tuned_[a-z_]+' "$1" | sort -u | comm -23 - "$W/known")
	[ -z "$bad" ] || { echo "# not exported by the daemon: $bad"; return 1; }
}
every_query_per_instance() {
	local bad
	bad=$(grep -v 'instance=~"\$instance"' "$W/exprs")
	[ -z "$bad" ] || { echo "# not selected by \$instance: $bad"; return 1; }
}
dashboard_shape() {
	python3 - "$DASH" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = {t["name"]: t for t in d["templating"]["list"]}
assert v["instance"]["multi"] and v["instance"]["includeAll"], v["instance"]
assert "instance" in v["instance"]["query"]["query"], v["instance"]
titles = " ".join(p["title"] for p in d["panels"]).lower()
for want in ("% of its limit", "knob", "mode", "pressure per source", "flips", "batch cgroups", "version"):
    assert want in titles, ("no panel for", want, titles)
ids = [p["id"] for p in d["panels"]]
assert len(ids) == len(set(ids)), ids
PY
}

check "the dashboard is JSON with an \$instance variable and the panels it should have" dashboard_shape
check "... every query selects \$instance" every_query_per_instance
check "... and uses only metrics the daemon exports" only_known "$W/exprs"
check "the alerting rules use only metrics the daemon exports" only_known "$RULES"

# promtool ARGS...: its output as TAP comments
promtool() { command promtool "$@" 2>&1 | sed 's/^/# /'; return "${PIPESTATUS[0]}"; }
if type -P promtool >/dev/null; then # (the function above is not the tool)
	check "promtool check rules: the alerting rules" promtool check rules "$RULES"
	check "promtool test rules: each alert fires where it should, and only there" promtool test rules "$RULES_TEST"
	# every dashboard query as a recording rule, Grafana's variables filled in
	{
		echo "groups: [{name: dashboard, rules: ["
		n=0
		while IFS= read -r e; do
			e=${e//\$__rate_interval/5m}
			e=${e//\$instance/.*}
			n=$((n + 1))
			printf '  {record: "dashboard:query%d", expr: %s},\n' "$n" "$(python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$e")"
		done <"$W/exprs"
		echo "]}]"
	} >"$W/dashboard.rules.yml"
	check "promtool: every dashboard query parses ($(wc -l <"$W/exprs"))" promtool check rules "$W/dashboard.rules.yml"
elif [ "${CI:-}" = true ]; then
	not_ok "promtool checks (would skip, but CI=true: promtool is not installed)"
else
	T_N=$((T_N + 1)); echo "ok $T_N - promtool checks of the rules and the dashboard # SKIP promtool is not installed (apt-get install prometheus)"
fi
finish
