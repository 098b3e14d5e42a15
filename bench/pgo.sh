#!/bin/bash
# Writes internal/coord/worker.pgo, the CPU profile the go command optimizes every worker with
# (-pgo, profile-guided optimization: it inlines and lays out the engine's hot calls). The profile
# is of the engine's own code on three kinds of model, so that no one model's handlers decide it:
# TwoPhase (a few strings and a message set) breadth-first and depth-first on two cores, AODV
# (pointers, maps, Choose) breadth-first, and etcd raft (a third-party module's types) on one.
# Function names, not addresses, tie the profile to the code: it stays useful as the code
# changes, and is worth regenerating after large changes to the engine or canon.
# Usage: bench/pgo.sh (a minute or two; run nothing else meanwhile).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$GO" test -run '^$' -bench 'Check/RM8/(Workers2|DepthFirst/Helper)$' -benchtime 3x \
	-cpuprofile "$work/twophase.pprof" -o "$work/twophase.test" ./examples/twophase
"$GO" test -run '^$' -bench 'BreadthFirst' -benchtime 3x \
	-cpuprofile "$work/aodv.pprof" -o "$work/aodv.test" ./examples/aodv
(cd examples/etcdraft && "$GO" test -run '^$' -bench 'Check$' -benchtime 2x \
	-cpuprofile "$work/etcdraft.pprof" -o "$work/etcdraft.test" .)
"$GO" tool pprof -proto "$work/twophase.pprof" "$work/aodv.pprof" "$work/etcdraft.pprof" \
	>internal/coord/worker.pgo
echo "wrote internal/coord/worker.pgo ($(wc -c <internal/coord/worker.pgo) bytes)"
