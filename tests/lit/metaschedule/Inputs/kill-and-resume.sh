#!/usr/bin/env bash
# tessel-tune killed with kill -9 mid-run, then run again on the same database:
# every record committed before the kill is there and is resumed from; then two
# tuners write the same file at once. Prints what the lit test checks.
set -euo pipefail
dir=$1
db=$dir/tune.db
tessel-workloads softmax_16x33 > "$dir/softmax.tsl"
records() { tessel-db list "$db" 2>/dev/null | tail -1 | awk '{print $3}'; }
quick=(--strategy=random --batch=2 --repeat=1 --min-repeat-ms=1 --workers=2)

tessel-tune "$dir/softmax.tsl" --db="$db" --trials=200 "${quick[@]}" > "$dir/killed.log" 2>&1 &
pid=$!
for _ in $(seq 1 1200); do
  n=$(records || true)
  if [ "${n:-0}" -ge 4 ]; then break; fi
  sleep 0.1
done
kill -9 "$pid"
wait "$pid" || true
before=$(records)
echo "killed after ${before} records: at least 4: $([ "$before" -ge 4 ] && echo yes || echo no)"

tessel-tune "$dir/softmax.tsl" --db="$db" --trials=2 "${quick[@]}" > "$dir/resumed.log"
resumed=$(awk '$1 == "softmax_16x33" {print $5}' "$dir/resumed.log")
echo "resumed every committed record: $([ "$resumed" = "$before" ] && echo yes || echo "no ($resumed of $before)")"
echo "records after the resumed run: +$(( $(records) - before ))"

# Two tuners at once on one file: both finish, and nothing of either is lost.
base=$(records)
tessel-tune "$dir/softmax.tsl" --db="$db" --trials=4 --seed=11 "${quick[@]}" > "$dir/a.log" 2>&1 &
a=$!
tessel-tune "$dir/softmax.tsl" --db="$db" --trials=4 --seed=12 "${quick[@]}" > "$dir/b.log" 2>&1 &
b=$!
wait "$a"; ra=$?
wait "$b"; rb=$?
echo "two tuners at once: exit $ra and $rb, records +$(( $(records) - base ))"
