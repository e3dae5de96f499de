# Helpers the firmware steps (60, 62) share; sourced, not run (.ci/run runs only
# .ci/steps/*.sh).  Needs $work, the step's scratch folder.

now() { date +%s.%N; }
since() { awk -v end="$(now)" -v start="$1" 'BEGIN { printf "%.1f", end - start }'; }

# A QEMU board under `memcore sim`, stopped on exit if the step fails while it runs.
sim_pid=
trap '[ -n "$sim_pid" ] && kill -TERM "$sim_pid" 2>/dev/null; true' EXIT

start_sim() { # firmware log: starts `memcore sim`, sets sim_pid and port
  # the last board's port file removed first: its port must not be taken for this one's
  rm -f "$work/port"
  memcore sim --firmware "$1" --port-file "$work/port" >"$2" 2>&1 &
  sim_pid=$!
  for _ in $(seq 600); do
    [ -s "$work/port" ] && break
    kill -0 $sim_pid 2>/dev/null || { cat "$2"; exit 1; }
    sleep 0.1
  done
  port=$(cat "$work/port")
}

stop_sim() { # log: stops the board and checks it said so
  kill -INT $sim_pid
  wait $sim_pid
  sim_pid=
  grep -q "stopping the board" "$1"
}
