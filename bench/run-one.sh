#!/usr/bin/env bash
# One TPC-C run of a given CLI jar, summarised on one line:
#   bench/run-one.sh JAR LABEL [tpcc run flags...]
# prints: LABEL rc txn/s, the per-second median and minimum (@ the second it fell in), aborts per commit
# (all, per type), p50 and p99 latency per type (us), round trips per transaction, terminal CPU us per
# transaction, GCL accesses per New-Order, and with --wal sync records per force and the durability wait's
# p50/p99 (us).
# The JVM flags are bin/selcc's; SELCC_JAVA_OPTS adds more (a JFR recording, say).
set -u
if [ $# -lt 2 ]; then
  echo "usage: bench/run-one.sh JAR LABEL [tpcc run flags...]" >&2
  exit 2
fi
jar=$1; label=$2; shift 2
if [ ! -f "$jar" ]; then
  echo "bench/run-one.sh: no such jar: $jar" >&2
  exit 2
fi
. "$(dirname "$0")/../bin/jdk.sh"
hp=""
if grep -qE '\[(always|madvise)\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
  hp="-XX:+UseTransparentHugePages"
fi
# Chronicle Queue (the commit log, --wal) needs these, as in bin/selcc.
chronicle="--add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED"
chronicle="$chronicle --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
chronicle="$chronicle -Dchronicle.analytics.disable=true -Dchronicle.disk.monitor.disable=true"
# shellcheck disable=SC2086 # option lists, split on purpose
out=$(timeout 900 "$JAVA_HOME/bin/java" -Xmx2g --enable-native-access=ALL-UNNAMED -XX:+UseParallelGC $hp $chronicle \
  ${SELCC_JAVA_OPTS:-} -jar "$jar" tpcc run "$@" 2>&1)
rc=$?
txn=$(echo "$out" | grep -o "txn/s [0-9,.]*" | tail -1 | awk '{print $2}')
secs=$(echo "$out" | grep -E "^run +[0-9.]+ s " | awk '{gsub(",","",$4); print $4}' | sort -n)
med=$(echo "$secs" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
min=$(echo "$secs" | head -1)
# which measured second was the slowest (1 = the first after the warm-up, which the JIT may still slow down)
minat=$(echo "$out" | grep -E "^run +[0-9.]+ s " | awk '{gsub(",","",$4); if (NR==1 || $4+0 < m) {m=$4+0; at=NR}} END {print at}')
# p50 and p99 columns: after "ab/cmt" where the table has it (builds before issue 27 do not)
shift=$(echo "$out" | grep -q "ab/cmt" && echo 1 || echo 0)
p50=$(echo "$out" | awk -v s="$shift" '/^(NewOrder|Payment|OrderStatus|Delivery|StockLevel) / && NF>12 && $2!="0" {printf "%s=%s ", substr($1,1,2), $(7+s)}')
p99=$(echo "$out" | awk -v s="$shift" '/^(NewOrder|Payment|OrderStatus|Delivery|StockLevel) / && NF>12 && $2!="0" {printf "%s=%s ", substr($1,1,2), $(9+s)}')
# aborted / committed from the table's second and third columns (builds without the ab/cmt column too)
abc=$(echo "$out" | awk '/^(NewOrder|Payment|OrderStatus|Delivery|StockLevel) / && NF>12 && $2!="0" {c=$2; a=$3; gsub(",","",c); gsub(",","",a); printf "%s=%.3f ", substr($1,1,2), a/c}')
ab=$(echo "$out" | awk '/^(NewOrder|Payment|OrderStatus|Delivery|StockLevel) / && NF>12 {c=$2; a=$3; gsub(",","",c); gsub(",","",a); tc+=c; ta+=a} END {if (tc>0) printf "%.3f", ta/tc}')
rpf=$(echo "$out" | grep -o "[0-9.]* records per force" | awk '{print $1}')
dw=$(echo "$out" | grep -o "durability wait per commit (whole run): p50 [0-9,]* us, p99 [0-9,]* us" | sed -E 's/.*p50 ([0-9,]+) us, p99 ([0-9,]+) us/\1\/\2/')
rt=$(echo "$out" | grep -o "round trips/txn [0-9.]*" | awk '{print $3}')
cpu=$(echo "$out" | grep -o "terminal CPU us/txn [0-9.]*" | awk '{print $4}')
gcl=$(echo "$out" | awk '/^NewOrder / && NF>12 {print $(NF-1)}')
echo "$label rc=$rc txn/s=$txn sec-median=$med min=$min@$minat ab/cmt=$ab [$abc] p50[$p50] p99[$p99] RT=$rt cpu=$cpu gclNO=$gcl${rpf:+ rec/force=$rpf}${dw:+ durwait-p50/p99=$dw}"
