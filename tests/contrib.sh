#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/: the Grafana dashboard and the Prometheus alerting rules use only
# metrics the daemon exports, across hosts ($job, $instance); the rules pass
# "promtool check rules" and their unit tests ("promtool test rules
# tests/prometheus/zswap-tuned.rules.test.yml"); each alert's runbook_url
# names a section of docs/runbook.md; the textfile a stopped daemon leaves
# makes ZswapTunedDown fire; every dashboard query parses as PromQL
# (promtool, as recording rules). Without promtool (Debian package
# prometheus) those cases skip, and fail under CI=true.
set -u
export LC_ALL=C
. "$(dirname "$0")/lib.sh"

DASH=$abs_top_srcdir/contrib/grafana/zswap-tuned.json
RULES=$abs_top_srcdir/contrib/prometheus/zswap-tuned.rules.yml
RULES_TEST=$abs_top_srcdir/tests/prometheus/zswap-tuned.rules.test.yml
RUNBOOK=$abs_top_srcdir/docs/runbook.md
scratch contrib

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
	bad=$(grep -v 'job=~"\$job",instance=~"\$instance"' "$W/exprs")
	[ -z "$bad" ] || { echo "# not selected by \$job and \$instance: $bad"; return 1; }
}
dashboard_shape() {
	python3 - "$DASH" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = {t["name"]: t for t in d["templating"]["list"]}
for name in ("job", "instance"):
    assert v[name]["multi"] and v[name]["includeAll"], v[name]
    assert name in v[name]["query"]["query"], v[name]
assert '$job' in v["instance"]["query"]["query"], v["instance"]
titles = " ".join(p["title"] for p in d["panels"]).lower()
for want in ("fleet", "hosts by mode", "top pool use", "writeback", "% of its limit", "knob", "mode",
             "pressure per source", "flips", "batch cgroups", "batch caps: why", "version"):
    assert want in titles, ("no panel for", want, titles)
ids = [p["id"] for p in d["panels"]]
assert len(ids) == len(set(ids)), ids
PY
}

check "the dashboard is JSON with an \$instance variable and the panels it should have" dashboard_shape
check "... every query selects \$job and \$instance" every_query_per_instance
check "... and uses only metrics the daemon exports" only_known "$W/exprs"
check "the alerting rules use only metrics the daemon exports" only_known "$RULES"
# every alert has a runbook_url, into a heading of docs/runbook.md
runbooks() {
	local alerts urls bad=0 u
	alerts=$(grep -c '^ *- alert: ' "$RULES")
	urls=$(grep -oE 'runbook_url: "[^"]*"' "$RULES" | sed 's/runbook_url: "//; s/"$//')
	[ "$alerts" -ge 7 ] && [ "$(wc -l <<<"$urls")" = "$alerts" ] || { echo "# $alerts alerts, $(wc -l <<<"$urls") runbook_url"; return 1; }
	# GitHub's anchors: the heading in lower case, without punctuation, spaces as '-'
	sed -n 's/^## //p' "$RUNBOOK" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9\n-' >"$W/anchors"
	while IFS= read -r u; do
		case $u in */docs/runbook.md#*) ;; *) echo "# $u: not into docs/runbook.md"; bad=1; continue ;; esac
		grep -qx "${u##*#}" "$W/anchors" || { echo "# $u: no such section in docs/runbook.md"; bad=1; }
	done <<<"$urls"
	return $bad
}
check "every alert has a runbook_url into a section of docs/runbook.md" runbooks

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
	# the textfile a daemon leaves when it stops (on a fake tree), as node_exporter
	# would serve it for 20 minutes: ZswapTunedDown fires, and nothing else
	fake_tree "$W" Y
	mkdir -p "$W/prom"
	printf '[Metrics]\nTextfileDirectory=%s\n' "$W/prom" >"$W/m.conf"
	"$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/m.conf" 2>"$W/log" & PID=$!
	wait_for_line "$W/log" 'Started \(pid'
	kill -TERM "$PID"; wait "$PID"; PID=
	stopped_test() {
		python3 - "$W/prom/zswap_tuned.prom" "$RULES" >"$W/stopped.test.yml" <<'PY' || return 1
import json, re, sys
series = []
for l in open(sys.argv[1]):
    if l.startswith("#") or not l.strip():
        continue
    name, value = l.rsplit(" ", 1)
    labels = 'instance="a:9100",job="node"'
    if "{" in name:
        name, rest = name.split("{", 1)
        labels = rest.rstrip("}") + "," + labels
    series.append({"series": "%s{%s}" % (name, labels), "values": "%sx20" % value})
series.append({"series": 'node_textfile_mtime_seconds{file="/var/lib/prometheus/node-exporter/zswap_tuned.prom",instance="a:9100",job="node"}', "values": "0x20"})
print(json.dumps({"rule_files": [sys.argv[2]], "evaluation_interval": "1m", "tests": [{"interval": "1m", "input_series": series,
    "alert_rule_test": [{"eval_time": "10m", "alertname": a, "exp_alerts": []} for a in
        ("ZswapTunedSaveFailed", "ZswapTunedDryRun", "ZswapTunedIdleByWarning", "ZswapPoolAtLimit")] +
        [{"eval_time": "10m", "alertname": "ZswapTunedDown", "exp_alerts": [{"exp_labels": {"severity": "warning", "instance": "a:9100", "job": "node"},
          "exp_annotations": {"summary": "zswap-tuned is down on a:9100",
            "description": "zswap_tuned_up is 0 (the daemon stopped) or its metrics file is more than 2 minutes old: nothing steers the zswap pool on this host, and every other zswap_tuned_* figure is gone or describes the past.",
            "runbook_url": "https://a-seed-73231e03.example/zswap-tuned/docs/runbook.md#zswaptuneddown"}}]}]}]}))
PY
		grep -qx 'zswap_tuned_up 0' "$W/prom/zswap_tuned.prom" && promtool test rules "$W/stopped.test.yml"
	}
	check "promtool: a stopped daemon's textfile makes ZswapTunedDown fire" stopped_test
elif [ "${CI:-}" = true ]; then
	not_ok "promtool checks (would skip, but CI=true: promtool is not installed)"
else
	T_N=$((T_N + 1)); echo "ok $T_N - promtool checks of the rules and the dashboard # SKIP promtool is not installed (apt-get install prometheus)"
fi
finish
