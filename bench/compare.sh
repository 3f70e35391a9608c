#!/usr/bin/env bash
# Compares CLI jars on one workload, interleaved, the order reversed every other round (ABBA) so a
# host that drifts during the comparison penalises no jar systematically:
#   bench/compare.sh ROUNDS "tpcc run flags" JAR...
# e.g. bench/compare.sh 4 "--warehouses 2 --mix 50,50,0,0,0 --duration 10s --warmup 15s" a.jar b.jar
# prints every run (bench/run-one.sh), then per jar the median and range of terminal CPU us/txn and
# of txn/s. These machines are noisy: trust a difference only well outside both ranges.
set -u
if [ $# -lt 3 ]; then
  echo "usage: bench/compare.sh ROUNDS \"tpcc run flags\" JAR..." >&2
  exit 2
fi
rounds=$1; flags=$2; shift 2
here=$(dirname "$0")
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then order=("$@"); else order=(); for ((i=$#; i>0; i--)); do order+=("${!i}"); done; fi
  for jar in "${order[@]}"; do
    # shellcheck disable=SC2086 # the flags are a list
    line=$("$here/run-one.sh" "$jar" "$(basename "$jar")" $flags)
    echo "round $round: $line"
    echo "$line" >> "$results"
  done
done
echo "--- medians (min-max) over $rounds rounds"
# field=value pairs of one jar's runs, numerically sorted; median and range (POSIX awk, no asort)
stats() {
  grep "^$1 " "$results" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2 | tr -d , | sort -n |
    awk '{v[NR]=$1} END {if (NR==0) {print "n/a"; exit}
      m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.1f (%.1f-%.1f)", m, v[1], v[NR]}'
}
for jar in "$@"; do
  name=$(basename "$jar")
  echo "$name  cpu us/txn $(stats "$name" cpu)  txn/s $(stats "$name" txn/s)"
done
