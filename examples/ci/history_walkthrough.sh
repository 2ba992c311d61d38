#!/usr/bin/env bash
# history_walkthrough.sh - the walkthrough of docs/history.md ("A week of runs on two hosts"),
# on one machine: two hosts (lab-a, lab-b) as two UTS namespaces with their own host names,
# three "nights" of three runs each into one SQLite store, night 3 on lab-a slowed by three
# busy loops sharing its CPU 0; then history, compare and the gate as the page shows them.
# Needs root (unshare --uts) and taskset; the null engine, so no device is touched.
#
#   NVBENCH=.venv/bin/nvbench examples/ci/history_walkthrough.sh [DIR]
set -u
N=${NVBENCH:-nvbench}
dir=${1:-$(mktemp -d)}
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f week.db nights.err
echo "store: $dir/week.db" >&2
as() { local host=$1; shift; unshare --uts sh -c "hostname $host; exec \"\$@\"" sh "$@"; }
runs() {  # host night: three runs saved with the night's label
  for i in 1 2 3; do
    as "$1" "$N" run engine=null rw=randread bs=4k cpus=0 runtime=1 --db week.db --label "night=$2" \
      --print-json >/dev/null 2>>nights.err
  done
}
runs lab-a 1; runs lab-b 1; runs lab-a 2; runs lab-b 2
busy=()
for k in 1 2 3; do taskset -c 0 sh -c 'while :; do :; done' & busy+=($!); done
runs lab-a 3
kill "${busy[@]}"
runs lab-b 3
show() { echo "\$ nvbench $*"; "$N" "$@"; echo "exit $?"; }
show history --db week.db --host lab-a
show compare store:host=lab-a,label.night=1 store:host=lab-b,label.night=1 --db week.db
show gate --db week.db --baseline store:host=lab-a,label.night=2 --candidate store:host=lab-a,label.night=3 \
  --fail-if 'iops<-5%' --fail-if 'lat.p99>+10%'
show gate --db week.db --baseline store:host=lab-b,label.night=2 --candidate store:host=lab-b,label.night=3 \
  --fail-if 'iops<-5%' --fail-if 'lat.p99>+10%'
show gate --db week.db --baseline store:host=lab-a,label.night=2 --candidate store:host=lab-b,label.night=3 \
  --fail-if 'iops<-5%'
