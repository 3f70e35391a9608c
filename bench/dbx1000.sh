#!/usr/bin/env bash
# Runs a DBx1000 build (github yxymit/DBx1000) and prints its throughput the way docs/benchmarks.md
# compares against it: txn/s = txn_cnt / run_time x threads (run_time is summed over threads).
#   bench/dbx1000.sh DIR        DIR holds a built rundb: config.h with WORKLOAD TPCC, NUM_WH 2,
#                               THREAD_CNT 2, CC_ALG NO_WAIT (or SILO), CPU_FREQ of the machine;
#                               built with make after adding -no-pie to the link flags
set -u
if [ $# -ne 1 ] || [ ! -x "$1/rundb" ]; then
  echo "usage: bench/dbx1000.sh DIR (a directory with a built DBx1000 rundb)" >&2
  exit 2
fi
cd "$1" && ./rundb -t2 -n2 | awk -F'[=,]' '/\[summary\]/ {
  for (i=1;i<=NF;i++) { if ($i ~ /txn_cnt/) t=$(i+1); if ($i ~ /run_time/) r=$(i+1) }
  printf "dbx1000 txn/s=%.0f (txn_cnt=%d run_time=%.2f)\n", t/r*2, t, r }'
