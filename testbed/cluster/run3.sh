#!/usr/bin/env bash
# run3.sh: a three-node NATS JetStream cluster on loopback (testbed/natsd,
# nats-server v2 embedded) with three `dwcrawl worker` processes, one per
# node, and a testbed crawl submitted with `dwcrawl run --nats`. It prints
# the crawl's JSON summary, then the number of forms `dwcrawl forms --nats`
# exports; it fails if a worker took no site. It stops everything it started
# (by pid) on exit.
#
#	testbed/cluster/run3.sh [PAGES]        (default 600)
#
# DWCRAWL and NATSD name prebuilt binaries (else they are built into the
# work directory); PORT is the first of the nine loopback ports it uses
# (default: a free block chosen from the pid); WORK keeps the directories (default: a
# temporary directory, removed on exit).
set -euo pipefail
cd "$(dirname "$0")/../.."

pages=${1:-600}
# below the kernel's ephemeral ports (32768 and up by default), where an
# outgoing connection of any process may hold a port; a block with a port
# something listens on is skipped
port=${PORT:-$((20000 + ($$ % 1200) * 10))}
if [ -z "${PORT:-}" ]; then
	for _ in $(seq 50); do
		busy=
		for ((p = port; p < port + 9; p++)); do
			if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then busy=1; break; fi
		done
		[ -z "$busy" ] && break
		port=$((port + 10 > 32750 ? 20000 : port + 10))
	done
fi
keep=${WORK:+1}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
pids=()
cleanup() {
	# workers first (they give back their unused pages), then the servers
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill "${pids[$i]}" 2>/dev/null || true
		wait "${pids[$i]}" 2>/dev/null || true
	done
	[ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${DWCRAWL:-}" ]; then
	DWCRAWL=$work/dwcrawl
	go build -o "$DWCRAWL" ./cmd/dwcrawl
fi
if [ -z "${NATSD:-}" ]; then
	NATSD=$work/natsd
	go build -o "$NATSD" ./testbed/natsd
fi

# three nodes: client ports port..port+2, route ports port+3..port+5
routes=nats://127.0.0.1:$((port + 3)),nats://127.0.0.1:$((port + 4)),nats://127.0.0.1:$((port + 5))
urls=()
for i in 0 1 2; do
	c=$((port + i)) r=$((port + 3 + i))
	"$NATSD" --addr 127.0.0.1:$c --js "$work/js$i" --name n$i --cluster 127.0.0.1:$r --routes "$routes" \
		2>"$work/natsd$i.log" &
	pids+=($!)
	urls+=(nats://127.0.0.1:$c)
done
all=$(IFS=,; echo "${urls[*]}")
for i in 0 1 2; do
	for _ in $(seq 600); do # up to a minute on a loaded machine
		grep -q serving "$work/natsd$i.log" && break
		sleep 0.1
	done
	grep -q serving "$work/natsd$i.log" || { echo "run3: node $i did not start:" >&2; cat "$work/natsd$i.log" >&2; exit 1; }
done
echo "run3: NATS cluster of 3 nodes at $all" >&2

# one worker per node, each knowing all three (it fails over)
for i in 0 1 2; do
	"$DWCRAWL" worker --nats "${urls[$i]},$all" --dir "$work/worker$i" --sites 2 --ack-wait 5s 2>"$work/worker$i.log" &
	pids+=($!)
done
# the crawl is submitted once every worker has joined: a worker still
# connecting when a short crawl ends takes no site
for i in 0 1 2; do
	for _ in $(seq 600); do
		grep -q "worker started" "$work/worker$i.log" && break
		sleep 0.1
	done
	grep -q "worker started" "$work/worker$i.log" || { echo "run3: worker $i did not start:" >&2; cat "$work/worker$i.log" >&2; exit 1; }
done

"$DWCRAWL" run --nats "$all" --testbed --pages "$pages" --crawl run3 --dir "$work/coordinator" --json domains/auto.lua \
	>"$work/summary.json" 2>"$work/run.log" || { echo "run3: dwcrawl run failed:" >&2; cat "$work/run.log" >&2; exit 1; }
cat "$work/summary.json"
forms=$("$DWCRAWL" forms --nats "$all" --crawl run3 --format jsonl | wc -l)
echo "run3: forms exported: $forms" >&2
for i in 0 1 2; do
	grep -q "crawl opened" "$work/worker$i.log" || { echo "run3: worker $i took no site:" >&2; cat "$work/worker$i.log" >&2; exit 1; }
done
echo "forms $forms"
