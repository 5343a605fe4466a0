#!/usr/bin/env bash
# The input module end to end (api/ct_input.h):
#   - events injected by a script are recorded with their frames; --replay-input plays the file
#     back headless to the same events, actions and hash, and recording the replay gives the same
#     file byte for byte; a console client injects events into a running engine the same way;
#   - a malformed recording is refused naming its line; a bad binding fails the compile naming
#     the action;
#   - a gamepad (--gamepad FILE of struct js_event records) gives buttons, axes and the d-pad;
#   - under Xvfb, real X events sent by xdotool to the --window reach the script in order, and
#     their recording replays headless to the same lines.
# usage: test_input.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source=$1 build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$source/tests/input/project" "$scratch/project"
cuttle="$build/kernel/cuttle"
"$build/tools/cuttle-compile/cuttle-compile" --strict --project "$scratch/project" --modules "$build/modules" >/dev/null

# The script's lines only (not the load order).
run() { "$cuttle" --strict --project "$scratch/project" --modules "$build/modules" --render-backend null "$@" \
        2>"$scratch/log" >"$scratch/out" || { cat "$scratch/log"; exit 1; }
        grep -E '^(event|action|mouse|input:) ' "$scratch/out" || true; }

# 1. Injected events, recorded, then replayed.
script='script_input = { [2] = {{"down", "w"}, {"motion", 100, 50, 3, -2}}, [4] = {{"down", "space"}, {"wheel", 0, 1}},
                          [5] = {{"up", "space"}, {"down", "mouse:left"}, {"axis", "gamepad:left_x", -0.5}},
                          [9] = {{"up", "mouse:left"}} }'
run --record-input "$scratch/rec.txt" -e "$script" > "$scratch/recorded.txt"
cat > "$scratch/expected.txt" <<'END'
event 3 down w
event 3 motion 100 50 3 -2
mouse 3 100 50 3 -2 0 0
event 5 down space
event 5 wheel 0 1
action 5 jump pressed
mouse 5 100 50 0 0 0 1
event 6 up space
event 6 down mouse:left
event 6 axis gamepad:left_x -0.5000
action 6 jump released
action 6 fire pressed
event 10 up mouse:left
action 10 fire released
input: 14 lines, hash 5f840fe1, w down true
END
diff "$scratch/expected.txt" "$scratch/recorded.txt"
run --replay-input "$scratch/rec.txt" --record-input "$scratch/again.txt" -e "$script" > "$scratch/replayed.txt"
diff "$scratch/recorded.txt" "$scratch/replayed.txt"
cmp "$scratch/rec.txt" "$scratch/again.txt"
grep -q "injected events are ignored" "$scratch/log"
grep -q "inject: ignored while --replay-input plays" "$scratch/log"
echo "input: injected events recorded and replayed to the same lines and the same file"

# 1b. The console injects events too: a client's script calls Input.inject between frames, and
# the recording has the event (so the session it was part of replays).
"$cuttle" --project "$scratch/project" --modules "$build/modules" --render-backend null --console 0 \
    --record-input "$scratch/console.txt" >"$scratch/console_out" 2>"$scratch/console_log" &
engine=$!
port=
for _ in $(seq 400); do
    port=$(cat "$scratch/console_log" "$scratch/console_out" | sed -n 's/.*console: listening on 127.0.0.1:\([0-9]*\).*/\1/p' | head -1)
    [ -n "$port" ] && break
    sleep 0.05
done
[ -n "$port" ] || { kill $engine; cat "$scratch/console_log"; echo "input: no console port"; exit 1; }
"$build/tools/cuttle-console/cuttle-console" "$port" -e 'Input.inject("down", "k")' >/dev/null
for _ in $(seq 400); do grep -q "event [0-9]* down k" "$scratch/console_out" && break; sleep 0.05; done
"$build/tools/cuttle-console/cuttle-console" "$port" -e 'return Input.down("k")' > "$scratch/console_reply"
kill $engine
wait $engine || true
grep -q "true" "$scratch/console_reply"
grep -q "^[0-9]* down k$" "$scratch/console.txt"
echo "input: a console client's Input.inject reaches the script and the recording"

# 2. Bad data is refused, naming where.
printf 'cuttle-input 1\n3 down w\n2 up w\n' > "$scratch/bad.txt"
! "$cuttle" --project "$scratch/project" --modules "$build/modules" --render-backend null \
    --replay-input "$scratch/bad.txt" --frames 1 >/dev/null 2>"$scratch/log"
grep -q "replay-input .*bad.txt: line 3: frame 2 comes after frame 3" "$scratch/log"
cp -r "$scratch/project" "$scratch/badproject"
printf 'jump = ["Space"]\n' > "$scratch/badproject/input/controls.input"
! "$build/tools/cuttle-compile/cuttle-compile" --project "$scratch/badproject" --modules "$build/modules" \
    >/dev/null 2>"$scratch/log"
grep -q "input/controls.input: action 'jump': 'Space' is not a control name" "$scratch/log"
echo "input: a bad recording and a bad binding are refused naming the line and the action"

# 3. A gamepad: struct js_event { u32 time; s16 value; u8 type; u8 number } records.
python3 - "$scratch/pad.bin" <<'END'
import struct, sys
JS_BUTTON, JS_AXIS, JS_INIT = 1, 2, 0x80
events = [(0, JS_BUTTON | JS_INIT, 0), (1, JS_BUTTON, 0), (-20000, JS_AXIS, 0), (32767, JS_AXIS, 5),
          (-32767, JS_AXIS, 7), (0, JS_AXIS, 7), (0, JS_BUTTON, 0), (1, JS_BUTTON, 5)]
with open(sys.argv[1], "wb") as f:
    for t, (value, kind, number) in enumerate(events):
        f.write(struct.pack("<IhBB", t, value, kind, number))
END
run --gamepad "$scratch/pad.bin" --frames 2 > "$scratch/pad.txt"
cat > "$scratch/expected.txt" <<'END'
event 1 down gamepad:a
event 1 axis gamepad:left_x -0.6104
event 1 axis gamepad:rt 1.0000
event 1 down gamepad:dpad_up
event 1 up gamepad:dpad_up
event 1 up gamepad:a
event 1 down gamepad:rb
action 1 jump pressed
action 1 fire pressed
END
diff "$scratch/expected.txt" <(grep -v '^input:' "$scratch/pad.txt")
echo "input: gamepad buttons, axes and the d-pad arrive from --gamepad"

# 4. Real X events under Xvfb.
if ! command -v xvfb-run >/dev/null || ! command -v xdotool >/dev/null; then
    echo "input: xvfb-run or xdotool is missing (scripts/setup.sh installs xvfb and xdotool)"; exit 1
fi
cat > "$scratch/x.sh" <<END
set -eu
"$cuttle" --strict --project "$scratch/project" --modules "$build/modules" --window --fps 30 --frames 100000 \
    --record-input "$scratch/xrec.txt" > "$scratch/xout.txt" 2>"$scratch/xlog" &
pid=\$!
w=
for i in \$(seq 200); do w=\$(xdotool search --name '^cuttle\$' 2>/dev/null | head -1 || true); [ -n "\$w" ] && break; sleep 0.05; done
[ -n "\$w" ] || { kill \$pid; cat "$scratch/xlog"; echo "no window"; exit 1; }
# Wait until the module listens (its log line), then type, click and scroll.
for i in \$(seq 200); do grep -q "listening to window" "$scratch/xlog" && break; sleep 0.05; done
xdotool mousemove --window "\$w" 100 50
xdotool keydown w
xdotool keyup w
xdotool click 1
xdotool click 4
xdotool mousemove --window "\$w" 110 60
xdotool keydown q
# The script has seen everything once the last event is printed.
for i in \$(seq 200); do grep -q "down q" "$scratch/xout.txt" && break; sleep 0.05; done
kill \$pid
wait \$pid || true
END
# Mouse-look: with capture on, motion reports how far the pointer moved, and the pointer goes
# back to the window's centre (320, 180) in between, so each event starts from there.
cat >> "$scratch/x.sh" <<END
"$cuttle" --project "$scratch/project" --modules "$build/modules" --window --fps 30 --frames 100000 \
    -e 'Input.set_capture(true)' > "$scratch/cout.txt" 2>"$scratch/clog" &
pid=\$!
for i in \$(seq 200); do grep -q "listening to window" "$scratch/clog" && break; sleep 0.05; done
sleep 0.3
xdotool mousemove_relative 10 0
for i in \$(seq 100); do grep -q "motion" "$scratch/cout.txt" && break; sleep 0.05; done
xdotool mousemove_relative -- -5 7
for i in \$(seq 100); do [ "\$(grep -c motion "$scratch/cout.txt")" -ge 2 ] && break; sleep 0.05; done
kill \$pid
wait \$pid || true
END
# A display number of our own (other suites start Xvfb at the same time; -a alone races them for
# :99), and a second try when the server did not come up.
for attempt in 1 2; do
    xvfb-run -a -n $((200 + RANDOM % 700)) -s "-screen 0 640x480x24" bash "$scratch/x.sh" && break
    [ $attempt = 2 ] && exit 1
    echo "input: the virtual display did not come up; trying another"
done
grep '^event' "$scratch/cout.txt" | cut -d' ' -f3- > "$scratch/cevents.txt"
printf 'motion 330 180 10 0\nmotion 315 187 -5 7\n' | diff - "$scratch/cevents.txt"
grep '^event' "$scratch/xout.txt" | cut -d' ' -f3- > "$scratch/xevents.txt"
cat > "$scratch/expected.txt" <<'END'
motion 100 50 0 0
down w
up w
down mouse:left
up mouse:left
wheel 0 1
motion 110 60 10 10
down q
END
diff "$scratch/expected.txt" "$scratch/xevents.txt"
grep -q "listening to window" "$scratch/xlog"
run --replay-input "$scratch/xrec.txt" --frames "$(tail -1 "$scratch/xrec.txt" | cut -d' ' -f1)" > "$scratch/xreplay.txt"
diff <(grep -E '^(event|action|mouse) ' "$scratch/xout.txt") <(grep -v '^input:' "$scratch/xreplay.txt")
echo "input: xdotool's keys, clicks, wheel, motion and captured relative motion reach the script under Xvfb and replay headless"
