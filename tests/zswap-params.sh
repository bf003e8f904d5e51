# SPDX-License-Identifier: GPL-2.0-or-later
# Save every zswap module parameter before a test touches one, and put back
# each that changed (enabled last) in the test's EXIT trap. Sourced by the
# real-kernel, systemd and benchmark scripts.

ZP=${ZP:-/sys/module/zswap/parameters}
declare -A ZP_SAVED=()

# zswap_params_save: remember them all. (Not in a $(...): that is a subshell.)
zswap_params_save() {
	local f
	for f in "$ZP"/*; do
		ZP_SAVED[${f##*/}]=$(cat "$f")
	done
}

# zswap_params_saved: "name=value ..." of what was saved, for the log.
zswap_params_saved() {
	local k
	for k in "${!ZP_SAVED[@]}"; do printf '%s=%s ' "$k" "${ZP_SAVED[$k]}"; done
}

# zswap_params_restore: 0 when everything is as it was, else 1 (and says which).
zswap_params_restore() {
	local f name cur problems=0
	for f in "$ZP"/*; do
		name=${f##*/}
		[ "$name" = enabled ] && continue
		[ -n "${ZP_SAVED[$name]+x}" ] && [ -w "$f" ] || continue
		cur=$(cat "$f" 2>/dev/null)
		[ "$cur" = "${ZP_SAVED[$name]}" ] && continue
		echo "${ZP_SAVED[$name]}" >"$f" 2>/dev/null ||
			{ echo "# cleanup: could not restore $name=${ZP_SAVED[$name]} (now $cur)"; problems=1; }
	done
	if [ -n "${ZP_SAVED[enabled]+x}" ] && [ "$(cat "$ZP/enabled")" != "${ZP_SAVED[enabled]}" ]; then
		echo "${ZP_SAVED[enabled]}" >"$ZP/enabled" ||
			{ echo "# cleanup: could not restore enabled=${ZP_SAVED[enabled]}"; problems=1; }
	fi
	return "$problems"
}
