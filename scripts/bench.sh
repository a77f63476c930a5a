#!/usr/bin/env bash
# make bench: runs the Go benchmarks (with allocation counts) and the
# end-to-end runs, and prints them with the machine and the date, ready to
# be recorded in docs/BENCHMARKS.md. The last part, the base-vs-head
# comparison (scripts/bench-base.sh, about 15-20 minutes), reads
# BENCH_BASE and BENCH_ROUNDS from the environment.
# Usage: scripts/bench.sh [output-file]   (default bench-results.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench-results.txt}
{
	echo "# $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(go version)"
	echo "## micro-benchmarks"
	go test -run='^$' -bench=. -benchmem -count=1 \
		./internal/uriindex/ ./wamp/codec/ ./internal/auth/
	echo "## router: publish fan-out alone (BenchmarkPublish) and while two sessions subscribe and unsubscribe to its topic without pause (BenchmarkPublishChurn, churn/s = pairs per second), call round trip, heap per idle joined session (BenchmarkIdleSessionHeap), sessions sending and publishers publishing on every CPU at once (BenchmarkSendParallel, BenchmarkPublishParallel)"
	go test -run='^$' -bench=. -benchmem -count=1 ./internal/router/
	echo "## end to end: RPC and fan-out over WebSocket (client and router in one process)"
	go test -run='^$' -bench='BenchmarkRPC|BenchmarkFanout' -benchtime=3s -count=1 ./test/bench/
	echo "## cluster: three nodes in one process (embedded NATS on 127.0.0.1, sessions in memory): calls across nodes (1 and 64 in flight) beside same-node and one-node, fan-out 1 -> 1,000 subscribers on three nodes, registration churn, time to detect a killed node (default lease)"
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	go test -run='^$' -bench='BenchmarkCallAcrossNodes|BenchmarkFanoutAcrossNodes|BenchmarkRegisterChurn' -benchtime=3s -count=1 ./internal/cluster/
	go test -run='^$' -bench=BenchmarkDetectDeadNode -benchtime=7x -count=1 ./internal/cluster/
	echo "## metrics: one scrape of /metrics (counters summed, text format, Go and process collectors) with 100 and 10,000 sessions joined"
	go test -run='^$' -bench=BenchmarkScrapeMetrics -benchtime=50x -benchmem -count=1 ./internal/node/
	echo "## memory: 10,000 idle WebSocket sessions (router in its own process)"
	go test -run='^$' -bench=BenchmarkIdleSessions -benchtime=1x -count=1 -v ./test/bench/ | grep -v '^=== '
	echo "## MQTT beside WebSocket: acknowledged publications one at a time through one node (MQTT QoS 1 with paho, WAMP acknowledge over WebSocket)"
	go test -run='^$' -bench=BenchmarkMQTTPublish -benchtime=3s -count=1 ./internal/node/
	echo "## long-poll beside WebSocket: server -> client EVENTs through one transport (plain and batched)"
	go test -run='^$' -bench='BenchmarkLongPollSendRecv|BenchmarkSendRecv' -benchmem -count=1 \
		./internal/transport/longpoll/ ./internal/transport/websocket/
	echo "## WAMP -> HTTP components: Subscriber forwarding rate, Callee calls/s"
	go test -run='^$' -bench=. -benchtime=3s -count=1 ./internal/bridge/rest/
	echo "## HTTP load on the junction binary (wrk, then hey for the Caller and Publisher), each beside its baseline"
	bash scripts/bench-http.sh 10
	echo "## reverse proxy: Junction beside nginx and Caddy, the same 1 KiB upstream (wrk, rotating rounds)"
	bash scripts/bench-proxy.sh
	echo "## base against head: the junction binary at \$BENCH_BASE (default 21bf6ab, main before issue 16) and this tree, the same rows in rotating rounds (\$BENCH_ROUNDS, default 7)"
	bash scripts/bench-base.sh
} 2>&1 | tee "$out"
echo "results in $out"
