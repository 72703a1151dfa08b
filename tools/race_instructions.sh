#!/usr/bin/env bash
# Instructions a 10-car 3-lap bot race on Monaco takes (issue 17's race row), counted by
# callgrind, which the machine's load does not move (timings here move by +-50 %).
#
#   tools/race_instructions.sh STEWARD [WEATHER] [RACES] [more `steward sim` arguments...]
#
# STEWARD is a release build of steward (target/release/steward). The races are `steward sim
# --seed 2026`'s first RACES (default 40) in WEATHER (dry, wet, changeable; default dry). Counted:
# everything under `sim::run_race`, less the bot's model build and plan solves (`Model::new`,
# `Model::plan`), which a long-running daemon or simulation makes once per track and tyre factor
# (the criterion benchmark warms them before it times). Needs valgrind.
# Example: tools/race_instructions.sh target/release/steward changeable 40 --profile eurogames-advanced
set -euo pipefail
bin=${1:?usage: $0 STEWARD [WEATHER] [RACES] [sim args...]}
weather=${2:-dry}
races=${3:-40}
shift $(( $# < 3 ? $# : 3 ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" --toggle-collect='steward::sim::run_race*' \
    "$bin" sim --track monaco --cars 10 --laps 3 --races "$races" --seed 2026 --weather "$weather" "$@" >/dev/null 2>"$out/log"
callgrind_annotate --inclusive=yes "$out/cg.out" >"$out/ann.txt" 2>/dev/null
count() { { grep -E "$1" "$out/ann.txt" || true; } | awk '{gsub(",", "", $1); print $1}' | sort -rn | head -1; }
total=$(count "PROGRAM TOTALS")
plan=$(count "steward::engine::bot::model::Model::plan")
model=$(count "steward::engine::bot::model::Model::new")
echo "$weather $*: $races races, $(( (total - ${plan:-0} - ${model:-0}) / races )) instructions a race" \
    "(all: $total; bot plans $plan and model ${model:-0} set aside)"
