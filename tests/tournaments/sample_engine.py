"""An external engine for the tournament tests, speaking the line protocol of
`tournaments.bots`: it plays the last legal action (of each game of a batched request).
Misbehaviours, for the protocol tests: `--banner` prints a line that is no reply first;
`--stale` sends each reply after a stale one (the previous id, the first legal action);
`--crash-after N` exits at its request N+1; `--mute-after N` then prints only chatter;
`--once FILE` misbehaves in the first process only (the one that creates FILE)."""

import argparse
import itertools
import json
import os
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--banner", action="store_true")
    parser.add_argument("--stale", action="store_true")
    parser.add_argument("--crash-after", type=int, default=-1)
    parser.add_argument("--mute-after", type=int, default=-1)
    parser.add_argument("--once", default="")
    args = parser.parse_args()
    if args.once and os.path.exists(args.once):
        args.crash_after = args.mute_after = -1
    elif args.once:
        open(args.once, "w").close()
    if args.banner:
        print("sample engine 1.0 ready", flush=True)
    for moves, line in enumerate(sys.stdin):
        request = json.loads(line)
        if request["type"] == "quit":
            return
        if moves == args.crash_after:
            sys.exit(3)
        if moves == args.mute_after:
            for i in itertools.count():
                print(f"thinking {i}", flush=True)
                time.sleep(0.05)
        if args.stale:
            reply = {"id": request["id"] - 1, "action": request["legal_actions"][0]}
            print(json.dumps(reply), flush=True)
        if request["type"] == "act_batch":
            reply = {"actions": [r["legal_actions"][-1] for r in request["requests"]]}
        else:
            reply = {"action": request["legal_actions"][-1]}
        print(json.dumps({"id": request["id"], **reply}), flush=True)


if __name__ == "__main__":
    main()
