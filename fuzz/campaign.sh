#!/usr/bin/env bash
# The fuzzing campaign behind `make fuzz-all` and `make fuzz-merge` (see
# docs/fuzzing.md). Expects the libFuzzer binaries built in BUILD/fuzz/.
#
#   fuzz/campaign.sh run BUILD RUNS LOG TARGET...
#     Runs each target, one after another, for RUNS executions from its
#     seeds (fuzz/corpus/TARGET, BUILD/fuzz/seeds/TARGET) and what earlier
#     runs kept (BUILD/corpus/TARGET, which this run grows), printing
#     libFuzzer's final stats, and appends one line per target to LOG. A
#     target that finds something is logged as such and the campaign goes
#     on to the next; the exit status is then 1.
#
#   fuzz/campaign.sh merge BUILD TARGET...
#     Rewrites fuzz/corpus/TARGET as its hand-written seeds (files not
#     named by a SHA-1) plus the smallest set of inputs (named by their
#     SHA-1) that covers what the campaign found beyond those seeds and the
#     generated ones, for the replay that ctest runs.
set -euo pipefail

die() { echo "campaign.sh: $*" >&2; exit 2; }
[[ $# -ge 3 ]] || die "usage: $0 run BUILD RUNS LOG TARGET... | merge BUILD TARGET..."
mode=$1
build=$2
shift 2

# The directories a run of $1 reads its seeds from, those that exist.
seed_dirs() {
  local d
  for d in "fuzz/corpus/$1" "$build/fuzz/seeds/$1"; do
    [[ -d $d ]] && echo "$d"
  done
  return 0
}

dict_flag() {
  [[ -f fuzz/$1.dict ]] && echo "-dict=fuzz/$1.dict"
  return 0
}

# "files/kilobytes" of a directory (the bytes the files hold, not the disk
# blocks they take).
corpus_size() {
  find "$1" -type f -printf '%s\n' |
    awk '{ n++; b += $1 } END { printf "%d/%dKB\n", n, (b + 1023) / 1024 }'
}

stat_of() {  # stat_of NAME LOGFILE: a stat::NAME line of -print_final_stats
  sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

run() {
  local runs=$1 log=$2
  shift 2
  local failed=0 target
  mkdir -p "$build/artifacts" "$build/logs" "$(dirname "$log")"
  for target in "$@"; do
    local binary=$build/fuzz/$target
    [[ -x $binary ]] || die "no $binary: build the fuzzers first"
    mkdir -p "$build/corpus/$target"
    local out=$build/logs/$target.log
    local start end rc=0
    echo "=== $target: $runs executions"
    start=$(date +%s.%N)
    # The whole output goes to the target's log; the terminal gets the
    # final stats and anything found.
    set +e
    # shellcheck disable=SC2046  # the seed directories are words
    "$binary" -runs="$runs" -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$target-" $(dict_flag "$target") \
      "$build/corpus/$target" $(seed_dirs "$target") 2>&1 | tee "$out" |
      grep -E '^(stat::|#[0-9]+[[:space:]]+DONE|INFO: seed corpus|==[0-9]+==ERROR|SUMMARY|[a-z_]+_fuzzer: |Test unit written)'
    local statuses=("${PIPESTATUS[@]}")
    set -e
    rc=${statuses[0]}
    end=$(date +%s.%N)
    local execs rate seconds last result
    execs=$(stat_of number_of_executed_units "$out")
    rate=$(stat_of average_exec_per_sec "$out")
    seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
    # The last status line (DONE, or the last before a find) has the coverage.
    last=$(grep -E '^#[0-9]+[[:space:]].* cov: ' "$out" | tail -n 1 || true)
    result=ok
    if [[ $rc -ne 0 ]]; then
      result="FOUND($(grep -o 'Test unit written to .*' "$out" | tail -n 1 | sed 's/Test unit written to //'))"
      failed=1
    fi
    printf '%s target=%s executions=%s seconds=%s exec/s=%s corpus=%s cov=%s ft=%s result=%s\n' \
      "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$target" "${execs:-?}" "$seconds" "${rate:-?}" \
      "$(corpus_size "$build/corpus/$target")" \
      "$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")" \
      "$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")" "$result" | tee -a "$log"
  done
  return $failed
}

merge() {
  local target
  for target in "$@"; do
    local binary=$build/fuzz/$target
    [[ -x $binary ]] || die "no $binary: build the fuzzers first"
    local committed=fuzz/corpus/$target
    local work=$build/merge/$target
    rm -rf "$work"
    mkdir -p "$work/seeds" "$work/found" "$work/merged" "$committed"
    # The seeds go in first, so that only what covers more than they do
    # is added to them; the committed and new finds are the candidates.
    local f
    for f in "$committed"/*; do
      [[ -f $f ]] || continue
      if [[ $(basename "$f") =~ ^[0-9a-f]{40}$ ]]; then
        cp "$f" "$work/found/"
      else
        cp "$f" "$work/seeds/"
      fi
    done
    if [[ -d $build/fuzz/seeds/$target ]]; then
      cp "$build/fuzz/seeds/$target"/* "$work/seeds/" 2>/dev/null || true
    fi
    cp "$work/seeds"/* "$work/merged/" 2>/dev/null || true
    "$binary" -merge=1 -timeout=10 "$work/merged" "$work/found" "$build/corpus/$target" \
      >"$work/merge.log" 2>&1 || die "merge of $target failed: see $work/merge.log"
    find "$committed" -maxdepth 1 -type f -regextype posix-extended \
      -regex '.*/[0-9a-f]{40}' -delete
    local added=0
    for f in "$work/merged"/*; do
      [[ -e $work/seeds/$(basename "$f") ]] && continue
      cp "$f" "$committed/"
      added=$((added + 1))
    done
    echo "$target: $added inputs beyond the seeds, fuzz/corpus/$target now $(corpus_size "$committed")"
  done
}

case $mode in
  run)
    [[ $# -ge 3 ]] || die "usage: $0 run BUILD RUNS LOG TARGET..."
    run "$@"
    ;;
  merge) merge "$@" ;;
  *) die "unknown mode $mode" ;;
esac
