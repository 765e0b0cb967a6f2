#!/usr/bin/env bash
# Coverage-guided fuzzing of every Jazzer @FuzzTest in the repository, one target after another.
#
#   bench/fuzz.sh                                   list the targets
#   bench/fuzz.sh all 10m                           fuzz every target for 10 minutes each
#   bench/fuzz.sh OtlpIndexerFuzzTest 30m           every target of one class
#   bench/fuzz.sh OtlpIndexerFuzzTest#index 90s     one target
#
# Targets are found in */src/test/java (a @FuzzTest method in a class named *FuzzTest); nothing is
# listed here. DURATION is seconds, or a number with s, m or h. Each target runs in its own Maven
# run (`-pl <module> -am test`, JAZZER_FUZZ=1), so runs never overlap. Crash inputs land in the
# target's regression directory, src/test/resources/<package>/<Class>Inputs/<method>/, where the
# default build replays them; the generated corpus goes to .cifuzz-corpus/ (git-ignored). Logs are
# kept in target/fuzz/ (or $FUZZ_LOG_DIR).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

selection="${1:-}"
duration="${2:-10m}"
log_dir="${FUZZ_LOG_DIR:-$root/target/fuzz}"

seconds_of() {
  local value="$1"
  case "$value" in
    *[!0-9smh]* | "" | [smh]*)
      echo "bad duration: $value (use 90, 90s, 10m or 1h)" >&2
      return 1
      ;;
    *h) echo $((${value%h} * 3600)) ;;
    *m) echo $((${value%m} * 60)) ;;
    *s) echo "${value%s}" ;;
    *) echo "$value" ;;
  esac
}

# Prints "module class method" for each @FuzzTest method: the class is fully qualified.
discover() {
  local file module class package
  grep -rl --include='*FuzzTest.java' '@FuzzTest' ./*/src/test/java 2>/dev/null | sort |
    while read -r file; do
      module="${file#./}"
      module="${module%%/src/test/java/*}"
      package="$(sed -n 's/^package \([a-zA-Z0-9_.]*\);.*/\1/p' "$file" | head -n 1)"
      class="${package:+$package.}$(basename "$file" .java)"
      # The method is the first "void name(" after each @FuzzTest annotation.
      awk '/@FuzzTest/ { armed = 1 }
           armed && match($0, /void [A-Za-z0-9_]+\(/) {
             print substr($0, RSTART + 5, RLENGTH - 6); armed = 0
           }' "$file" |
        while read -r method; do
          echo "$module $class $method"
        done
    done
}

targets="$(discover)"
if [[ -z "$targets" ]]; then
  echo "no @FuzzTest methods found under */src/test/java" >&2
  exit 1
fi

if [[ -z "$selection" ]]; then
  echo "usage: bench/fuzz.sh TARGET|all [DURATION]   (TARGET is Class or Class#method)"
  echo "targets:"
  while read -r module class method; do
    echo "  ${class##*.}#$method  ($module)"
  done <<<"$targets"
  exit 0
fi

seconds="$(seconds_of "$duration")"
mkdir -p "$log_dir"

selected=()
while read -r module class method; do
  simple="${class##*.}"
  if [[ "$selection" == all || "$selection" == "$simple" || "$selection" == "$simple#$method" ||
    "$selection" == "$class" || "$selection" == "$class#$method" ]]; then
    selected+=("$module $class $method")
  fi
done <<<"$targets"
if [[ ${#selected[@]} -eq 0 ]]; then
  echo "no target matches $selection; run bench/fuzz.sh without arguments for the list" >&2
  exit 1
fi

echo "fuzzing ${#selected[@]} target(s) for ${seconds} s each"
summary=()
failed=0
for entry in "${selected[@]}"; do
  read -r module class method <<<"$entry"
  simple="${class##*.}"
  log="$log_dir/$simple-$method.log"
  echo "== $simple#$method ($module), ${seconds} s, log $log"
  started=$(date +%s)
  status=0
  # jazzer-junit 0.24.0 sets -max_total_time from @FuzzTest(maxDuration); libFuzzer takes the last
  # of repeated flags, and the junit integration appends the jazzer.internal.arg.N configuration
  # parameters (arg 0 stands for argv[0]) after its own, so these override the annotation.
  JAZZER_FUZZ=1 mvn -B -pl "$module" -am test \
    -Dtest="$simple#$method" -Dsurefire.failIfNoSpecifiedTests=false \
    -Djazzer.internal.arg.0=fuzz \
    -Djazzer.internal.arg.1=-max_total_time="$seconds" \
    -Djazzer.internal.arg.2=-print_final_stats=1 \
    >"$log" 2>&1 || status=$?
  elapsed=$(($(date +%s) - started))
  executions="$(sed -n 's/.*stat::number_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)"
  if [[ -z "$executions" ]]; then
    executions="$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)"
  fi
  crashes="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | sort -u)"
  findings=$(grep -c '^== Java Exception' "$log" || true)
  if [[ -n "$crashes" && "$findings" -eq 0 ]]; then
    findings=$(wc -l <<<"$crashes")
  fi
  if [[ $status -ne 0 && "$findings" -eq 0 ]]; then
    echo "   the run failed without a finding (build or set-up error): see $log"
    failed=1
  fi
  line="$simple#$method: ${elapsed} s, ${executions:-?} executions, $findings finding(s)"
  echo "   $line"
  if [[ -n "$crashes" ]]; then
    while read -r crash; do
      echo "   crash input: $crash"
      line+=$'\n'"    crash input: $crash"
    done <<<"$crashes"
    failed=1
  fi
  summary+=("$line")
done

echo
echo "summary"
for line in "${summary[@]}"; do
  echo "  $line"
done
exit $failed
