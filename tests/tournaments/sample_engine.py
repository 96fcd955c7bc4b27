"""An external engine for the tournament tests, speaking the line protocol of
`tournaments.bots`: it plays the last legal action; with `--crash-after N` it exits after N
moves."""

import json
import sys


def main() -> None:
    crash_after = int(sys.argv[2]) if sys.argv[1:2] == ["--crash-after"] else -1
    moves = 0
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "quit":
            return
        if moves == crash_after:
            sys.exit(3)
        moves += 1
        print(json.dumps({"action": request["legal_actions"][-1]}), flush=True)


if __name__ == "__main__":
    main()
