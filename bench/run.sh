#!/usr/bin/env bash
# SPIN against cmc on TwoPhase (Lamport's two-phase commit), back to back, for each RM given:
#
#   bench/run.sh [RM...]          # default: 7 9 (RM=9 takes minutes); also: make bench-spin RM=7
#
# SPIN checks bench/twophase.pml with a depth-first search, without partial-order reduction
# (-DNOREDUCE), storing full state vectors; cmc checks examples/twophase with `cmcdap check`,
# breadth-first and then depth-first (one row each), storing 64-bit state hashes. Both must store
# the same number of states, or the script fails. For each run it prints states, wall time,
# search time, states/s, peak RSS, bytes/state, and against SPIN the speed ratio (SPIN's states/s
# over cmc's) and the memory ratio (cmc's peak RSS over SPIN's).
#
# Times: "wall" is the whole command under /usr/bin/time; "search" is what the tool itself reports
# (pan's "elapsed time", cmc's elapsed_s). states/s and the speed ratio use the search time; cmc's
# wall time also holds `go list`, `go build` of the worker (compiled once before the measured runs,
# but relinked by every cmcdap check: 0.5-1 s) and starting the worker.
#
# Memory: cmcdap checks in a worker process it starts, and /usr/bin/time reports only the largest
# single process of the tree, so while a command runs the script reads /proc/PID/status of all
# its processes every 100 ms and takes the peak of their summed VmRSS (or the largest VmHWM, one
# process's exact peak, if that is larger). The go command that cmcdap runs to build the worker
# before the check (and that has exited when the worker starts) is not counted. For pan, one
# process, the figure is /usr/bin/time's maximum RSS.
#
# Partitions: with PARTITIONS="1 2 4", each RM also gets a breadth-first row per number of
# partitions (`cmcdap check -partitions N`, search column pN): the summed RSS then covers cmcdap,
# the NATS server it runs and every partition's worker, and the line after the row gives the bytes
# the partitions exchanged a state and each partition's states.
#
# Rounds: with ROUNDS=N the whole comparison (SPIN, then each cmc search) runs N times in turn, and
# a last table gives, per RM and search, the median of the rounds' speed and memory ratios: on a
# shared machine one round's ratio moves by a fifth from one minute to the next. It marks with a *
# each round whose run began or ended with the cores apart (a trip over 150 ns, see Cores) and
# gives the median of the other rounds too ("near": - when there are none).
#
# Cores: after each cmc row a comment gives how long a cache line took to go from one core to the
# other just before and just after the run (bench/corelatency). A virtual machine's host may run its
# two CPUs on cores that share a cache (about 45 ns here) or apart (about 205 ns), and moves them;
# SPIN runs on one core and does not notice, cmc's searches on two hand work across and do.
#
# Environment: PARTITIONS (see above), SEARCHES (cmc's one-process searches; default "bfs dfs"),
# ROUNDS (default 1),
# SPIN_W (pan's -w, log2 of hash-table slots; default by RM), SPIN_CFLAGS (extra gcc
# flags for pan), TIMEOUT (seconds each run may take; default 1800), GO (default go).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
GO=${GO:-go}
TIMEOUT=${TIMEOUT:-1800}
RMS=("$@")
[ ${#RMS[@]} -gt 0 ] || RMS=(7 9)

die() { echo "bench/run.sh: $*" >&2; exit 1; }

# install NAME PACKAGE: the command from Debian's package when it is missing.
install() {
	command -v "$1" >/dev/null && return
	echo "bench/run.sh: $1 not found; installing Debian package $2" >&2
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq && $sudo apt-get install -y -qq "$2" >/dev/null || die "cannot install $2: install it and run again"
	command -v "$1" >/dev/null || die "$2 installed but $1 is still not on PATH"
}
install spin spin
install gcc gcc
[ -x /usr/bin/time ] || { install time time; }
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (Debian package time)"
command -v ps >/dev/null || die "ps is missing (Debian package procps)"

work=$(mktemp -d "${TMPDIR:-/tmp}/cmc-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(uname -m)  $(nproc) cores  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "# $(spin -V)  $(gcc --version | head -1)  $($GO version)"
echo "# load before: $(uptime | sed 's/.*load average/load average/')"

"$GO" build -o "$work/cmcdap" ./cmd/cmcdap || die "build cmcdap"
"$GO" build -o "$work/corelatency" ./bench/corelatency || die "build bench/corelatency"
# Builds the worker into the cache, so the measured runs find it up to date.
"$work/cmcdap" models ./examples/twophase >/dev/null || die "build the twophase worker"

# spin_w RM: pan's -w, so that the hash table has 3-4 slots a state.
spin_w() {
	if [ -n "${SPIN_W:-}" ]; then echo "$SPIN_W"; return; fi
	case $1 in
	1 | 2 | 3) echo 10 ;; 4) echo 12 ;; 5) echo 15 ;; 6) echo 17 ;; 7) echo 20 ;; 8) echo 22 ;; 9) echo 25 ;; *) echo 28 ;;
	esac
}

# tree_pids ROOT: ROOT's descendants, leaving out timeout, /usr/bin/time and the go command with
# its children (cmcdap runs `go list` and `go build` for the worker before checking; that is the
# toolchain's memory, not the checker's, and it is gone before the worker starts).
tree_pids() {
	ps -e -o pid=,ppid=,comm= | awk -v root="$1" '
		{ parent[$1] = $2; comm[$1] = $3 }
		END {
			for (p in parent) {
				skip = comm[p] == "timeout" || comm[p] == "time"
				for (q = p; q != root && q in parent; q = parent[q])
					if (comm[q] == "go") skip = 1
				if (q == root && !skip) print p
			}
		}'
}

# pids_memory PID...: sets sum to the VmRSS of the processes added up and max to the largest
# VmHWM (one process's own peak), in KiB. Bash builtins only, no process started: it runs every
# 100 ms on the two cores the measured command uses (a `ps` and an `awk` each time took a fifth
# of a core, which a search on both cores paid for).
pids_memory() {
	local p k v rest
	sum=0 max=0
	for p in "$@"; do
		[ -r "/proc/$p/status" ] || continue
		while read -r k v rest; do
			case $k in
			VmRSS:) sum=$((sum + v)) ;;
			VmHWM:) ((v > max)) && max=$v ;;
			esac
		done <"/proc/$p/status" 2>/dev/null
	done
	return 0
}

# measure OUT CMD...: runs CMD under /usr/bin/time -v (and timeout) with stdout to OUT, and sets
# wall (seconds, from /usr/bin/time) and rss (KiB): the peak of the summed RSS of CMD's processes,
# sampled every 100 ms (the processes found every second), or the largest single process's own
# peak if that is larger (it is exact; the sampled sum may miss a short peak); and timemax (KiB): /usr/bin/time's maximum RSS, the
# largest single process's peak, the go command included.
measure() {
	local out=$1
	shift
	timeout "$TIMEOUT" /usr/bin/time -v -o "$work/time" "$@" >"$out" 2>"$work/stderr" &
	local root=$! peak=0 hwm=0 sum max pids=() n=0 # root is timeout's pid
	while kill -0 "$root" 2>/dev/null; do
		# The processes are looked for once a second (cmcdap starts the worker once it is built),
		# their memory read every 100 ms.
		if ((n++ % 10 == 0)); then
			mapfile -t pids < <(tree_pids "$root")
		fi
		pids_memory "${pids[@]}"
		((sum > peak)) && peak=$sum
		((max > hwm)) && hwm=$max
		sleep 0.1
	done
	local code=0
	wait "$root" || code=$?
	if [ "$code" -ne 0 ]; then
		cat "$work/stderr" >&2
		[ "$code" -eq 124 ] && die "timed out after ${TIMEOUT}s: $*"
		# cmcdap check exits 1 when it finds a violation; the caller reads the output.
		[ "$code" -eq 1 ] || die "exit code $code: $*"
	fi
	local elapsed
	elapsed=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$work/time")
	wall=$(echo "$elapsed" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
	rss=$((hwm > peak ? hwm : peak))
	timemax=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time")
}

printf '\n%-4s %-5s %-4s %11s %12s %8s %8s %10s %9s %8s %10s %10s\n' \
	RM tool srch states transitions wall_s search_s states/s peak_MiB B/state SPIN/cmc cmc/SPIN
printf '%-4s %-5s %-4s %11s %12s %8s %8s %10s %9s %8s %10s %10s\n' \
	"" "" "" "" "" "" "" "" "" "" "(speed)" "(memory)"

# ratios collects, per round, "RM SEARCH SPEED MEMORY APART" lines for the medians (APART: 1 when
# the cores were apart before or after the run).
ratios=$work/ratios
: >"$ratios"

# row RM TOOL SEARCH STATES TRANSITIONS WALL SEARCH RSS_KIB [SPIN_RATE SPIN_RSS_KIB APART]
row() {
	awk -v rm="$1" -v tool="$2" -v srch="$3" -v n="$4" -v tr="$5" -v wall="$6" -v t="$7" -v kib="$8" \
		-v srate="${9:-}" -v skib="${10:-}" -v apart="${11:-0}" -v ratios="$ratios" 'BEGIN {
		rate = t > 0 ? n / t : 0
		sp = srate > 0 && rate > 0 ? sprintf("%.2fx", srate / rate) : "-"
		me = skib != "" ? sprintf("%.2fx", kib / skib) : "-"
		printf "%-4s %-5s %-4s %11d %12d %8.2f %8.2f %10.0f %9.1f %8.1f %10s %10s\n",
			rm, tool, srch, n, tr, wall, t, rate, kib / 1024, kib * 1024 / n, sp, me
		if (srate > 0 && rate > 0 && skib != "")
			printf "%s %s %.4f %.4f %d\n", rm, srch, srate / rate, kib / skib, apart >> ratios
	}'
}

ROUNDS=${ROUNDS:-1}
[[ $ROUNDS =~ ^[0-9]+$ ]] && ((ROUNDS >= 1)) || die "ROUNDS=$ROUNDS: want a number of rounds, 1 or more"
for round in $(seq "$ROUNDS"); do
	for rm in "${RMS[@]}"; do
		[[ $rm =~ ^[0-9]+$ ]] && ((rm >= 1 && rm <= 16)) || die "RM=$rm: want 1 to 16 resource managers"

		# SPIN: the model's N is a Promela macro, so it goes to spin's preprocessor (pan.c itself
		# uses N as a name).
		mkdir -p "$work/spin$rm"
		(cd "$work/spin$rm" && spin -DN="$rm" -a "$root/bench/twophase.pml" >/dev/null) || die "spin -a bench/twophase.pml"
		# shellcheck disable=SC2086 # SPIN_CFLAGS is a list of flags
		gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=16384 ${SPIN_CFLAGS:-} -o "$work/spin$rm/pan" "$work/spin$rm/pan.c" 2>"$work/gcc" ||
			{ cat "$work/gcc" >&2; die "compile pan"; }
		cd "$work/spin$rm" # pan writes its trail file, if any, where it runs
		measure "$work/pan.out" ./pan -n -w"$(spin_w "$rm")"
		cd "$root"
		grep -q 'errors: 0' "$work/pan.out" || { cat "$work/pan.out" >&2; die "RM=$rm: SPIN found an error or did not finish"; }
		spin_states=$(awk '/states, stored/ { print $1 }' "$work/pan.out")
		spin_tr=$(awk '/transitions \(= stored\+matched\)/ { print $1 }' "$work/pan.out")
		spin_t=$(awk '/pan: elapsed time/ { print $4 }' "$work/pan.out")
		spin_rss=$((timemax > rss ? timemax : rss))
		spin_rate=$(awk -v n="$spin_states" -v t="$spin_t" 'BEGIN { print (t > 0 ? n / t : 0) }')
		row "$rm" spin dfs "$spin_states" "$spin_tr" "$wall" "$spin_t" "$spin_rss"

		# field NAME: a number or word of cmc's JSON result.
		field() { sed -n "s/^  \"$1\": \\(.*\\),\$/\\1/p" "$work/cmc.json"; }
		for search in ${SEARCHES-bfs dfs}; do
			trip_before=$("$work/corelatency")
			measure "$work/cmc.json" "$work/cmcdap" check -model TwoPhase -set RM="$rm" -search "$search" -q -json \
				-db "$work/traces.db" ./examples/twophase
			[ "$(field complete)" = true ] || { cat "$work/cmc.json" >&2; die "RM=$rm: cmc $search did not explore every state"; }
			grep -Eq '^  "violations": \[\],?$' "$work/cmc.json" ||
				{ cat "$work/cmc.json" >&2; die "RM=$rm: cmc $search reports a violation"; }
			states=$(field states)
			trip_after=$("$work/corelatency")
			apart=$((trip_before > 150 || trip_after > 150 ? 1 : 0))
			row "$rm" cmc "$search" "$states" "$(field transitions)" "$wall" "$(field elapsed_s)" "$rss" "$spin_rate" "$spin_rss" "$apart"
			echo "#   a cache line from core to core: $trip_before ns before, $trip_after ns after (bench/corelatency)"
			[ "$states" = "$spin_states" ] ||
				die "RM=$rm: state counts differ: SPIN stored $spin_states, cmc $search $states; bench/twophase.pml and examples/twophase no longer model the same thing"
		done
		for n in ${PARTITIONS:-}; do
			[[ $n =~ ^[0-9]+$ ]] && ((n >= 1)) || die "PARTITIONS: $n is not a number of partitions"
			measure "$work/cmc.json" "$work/cmcdap" check -partitions "$n" -model TwoPhase -set RM="$rm" -q -json \
				-db "$work/traces.db" ./examples/twophase
			states=$(field states)
			row "$rm" cmc "p$n" "$states" "$(field transitions)" "$wall" "$(field elapsed_s)" "$rss" "$spin_rate" "$spin_rss"
			awk -v n="$states" '/"partitions": \[/ { on = 1 } on && /"states":/ { gsub(/[^0-9]/, ""); each = each sep $0; sep = " " }
				on && /"bytes":/ { gsub(/[^0-9]/, ""); bytes += $0 }
				END { printf "#   exchanged %.0f bytes a state; states by partition: %s\n", bytes / n, each }' "$work/cmc.json"
			[ "$states" = "$spin_states" ] || die "RM=$rm: state counts differ: SPIN stored $spin_states, cmc with $n partitions $states"
		done
	done
done
if ((ROUNDS > 1)); then
	printf '\n# medians of %d rounds (*: the cores apart)\n%-4s %-4s %10s %10s %10s   %s\n' "$ROUNDS" RM srch SPIN/cmc near cmc/SPIN "speed ratios, round by round"
	sort -k1,1n -k2,2 -s "$ratios" | awk '
		function median(a, n,   i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		function flush() {
			if (n == 0) return
			list = ""; for (i = 1; i <= n; i++) list = list sprintf(" %.2fx%s", order[i], far[i] ? "*" : "")
			nearm = k > 0 ? sprintf("%.2fx", median(nr, k)) : "-"
			printf "%-4s %-4s %9.2fx %10s %9.2fx  %s\n", key_rm, key_s, median(sp, n), nearm, median(me, n), list
			n = 0; k = 0
		}
		$1 != key_rm || $2 != key_s { flush(); key_rm = $1; key_s = $2 }
		{ n++; sp[n] = $3; me[n] = $4; order[n] = $3; far[n] = $5 }
		!$5 { k++; nr[k] = $3 }
		END { flush() }'
fi
echo "# load after: $(uptime | sed 's/.*load average/load average/')"
