# Sourced after bench-common.sh by the scripts that load the HTTP bridge
# (bench-http.sh, bench-base.sh): requests for wrk and hey, and one run of
# either, summarised. $gen picks the generator, $secs the run's length.

# load NAME METHOD [JSON]: a request the generators send, as a wrk script
# ($tmp/NAME.lua) and, for hey, a body file ($tmp/NAME.body).
declare -A methods
load() {
	local name=$1 method=$2 body=${3:-}
	methods[$name]=$method
	printf '%s' "$body" >"$tmp/$name.body"
	{
		echo "wrk.method = \"$method\""
		if [ -n "$body" ]; then
			echo "wrk.body = '$body'"
			echo 'wrk.headers["Content-Type"] = "application/json"'
		fi
	} >"$tmp/$name.lua"
}

# measure CONNS URL LOAD: one run of $gen; sets rps, p50, p99 and errs
# (non-2xx answers and socket errors, empty when there were none).
measure() {
	local conns=$1 url=$2 name=$3
	local out
	case $gen in
	wrk)
		out=$(wrk -t1 -c"$conns" -d"${secs}s" --latency -s "$tmp/$name.lua" "$url")
		rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
		p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
		p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
		errs=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out" | tr '\n' ' ')
		;;
	hey)
		local body=()
		[ -s "$tmp/$name.body" ] && body=(-T application/json -D "$tmp/$name.body")
		out=$(hey -c "$conns" -z "${secs}s" -m "${methods[$name]}" "${body[@]}" "$url")
		rps=$(awk '/Requests\/sec/ {printf "%.2f", $2}' <<<"$out")
		p50=$(awk '$1 == "50%" {printf "%.2fms", $3 * 1000}' <<<"$out")
		p99=$(awk '$1 == "99%" {printf "%.2fms", $3 * 1000}' <<<"$out")
		errs=$(awk '/^Status code distribution/ {s = 1; next} /^Error distribution/ {s = 0; e = 1; next}
			s && /\[[0-9]+\]/ && $1 !~ /^\[2/ {printf "status %s %s ", $1, $2}
			e && NF {print "error:", $0}' <<<"$out" | tr '\n' ' ')
		;;
	esac
}
