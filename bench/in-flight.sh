#!/usr/bin/env bash
# Issue 27's measurements: configurations given as "LABEL|JAR|tpcc run flags" lines on stdin, each run
# ROUNDS times, interleaved (every configuration once per round, the order reversed every other round),
# each through bench/run-one.sh; then per label the median and range of txn/s and aborts per commit.
#   bench/in-flight.sh ROUNDS < configurations
# e.g. printf '%s\n' "off-10|cli/target/selcc-cli.jar|--warehouses 2 --terminals 10 --wal off" \
#                    "sync-10|cli/target/selcc-cli.jar|--warehouses 2 --terminals 10 --wal sync" |
#      bench/in-flight.sh 2
# Common flags (duration, warm-up, mix) go in each line; docs/benchmarks.md lists the lines it used.
set -u
if [ $# -ne 1 ]; then
  echo "usage: bench/in-flight.sh ROUNDS < 'LABEL|JAR|flags' lines" >&2
  exit 2
fi
rounds=$1
here=$(dirname "$0")
mapfile -t configs
if [ ${#configs[@]} -eq 0 ]; then
  echo "bench/in-flight.sh: no configurations on stdin" >&2
  exit 2
fi
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then order=("${configs[@]}"); else order=(); for ((i=${#configs[@]}-1; i>=0; i--)); do order+=("${configs[$i]}"); done; fi
  for config in "${order[@]}"; do
    IFS='|' read -r label jar flags <<< "$config"
    # shellcheck disable=SC2086 # the flags are a list
    line=$("$here/run-one.sh" "$jar" "$label" $flags)
    echo "round $round: $line"
    echo "$line" >> "$results"
  done
done
echo "--- medians (min-max) over $rounds rounds"
stats() {
  grep "^$1 " "$results" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2 | tr -d , | sort -n |
    awk '{v[NR]=$1} END {if (NR==0) {print "n/a"; exit}
         m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%s (%s-%s)", m, v[1], v[NR]}'
}
for config in "${configs[@]}"; do
  IFS='|' read -r label _ _ <<< "$config"
  echo "$label: txn/s $(stats "$label" txn/s)  aborts/commit $(stats "$label" ab/cmt)  cpu us/txn $(stats "$label" cpu)"
done
