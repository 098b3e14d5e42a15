#!/usr/bin/env bash
# The search experiment of docs/search.md: each strategy on AODV chains and grids (examples/aodv,
# scale.go), each run bounded at STATES distinct states (default 2,000,000), one row each:
#
#   bench/search.sh [MODEL:NODES...]   # default: AODVGrid:8 AODVChain:8; about 12 minutes
#
# Columns: the strategy, the check's own time (cmcdap's elapsed_s, without building the worker),
# states, transitions, and the length of the routing-loop trace (- when none was found within the
# bound). Runs are sequential, one core each (a model with a scenario, as these have, expands
# breadth-first levels on one goroutine).
set -euo pipefail
cd "$(dirname "$0")/.."
STATES=${STATES:-2000000}
bin=$(mktemp -d)/cmcdap
db=$(mktemp -d)/search.db
go build -o "$bin" ./cmd/cmcdap
strategies=(
	"bfs|-search bfs"
	"dfs|-search dfs -depth 200"
	"deepen|-search deepen"
	"random|-search random -steps 10000 -seed 1"
	"swarm|-search swarm -depth 200 -seed 1"
	"best-first AODV-BeFS-1|-search best -set score=1"
	"best-first AODV-BeFS-3 (two levels)|-search best -set score=3"
	"best-first, abstract state (class 3)|-search best -set abstract=true"
	"best-first, new values (class 2)|-search best"
)
for target in "${@:-AODVGrid:8 AODVChain:8}"; do
	for t in $target; do
		model=${t%%:*} nodes=${t##*:}
		echo "## $model nodes=$nodes, at most $STATES states"
		echo "| strategy | time (s) | states | transitions | loop trace (steps) |"
		echo "|---|---|---|---|---|"
		for s in "${strategies[@]}"; do
			name=${s%%|*} flags=${s#*|}
			# shellcheck disable=SC2086
			out=$("$bin" check -q -json -db "$db" -model "$model" -set nodes="$nodes" -states "$STATES" $flags ./examples/aodv || true)
			python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
loops = [v["length"] for v in r["violations"] if v.get("name") == "NoRoutingLoop"]
print("| %s | %.1f | {:,} | {:,} | %s |".format(r["states"], r["transitions"]) % (sys.argv[1], r["elapsed_s"], loops[0] if loops else "-"))
' "$name" <<<"$out"
		done
		echo
	done
done
