#!/usr/bin/env python3
"""Peak resident memory of one command: bench/e2e.sh's RSS column.

usage: bench/peak-rss.py OUTFILE COMMAND [ARG...]

Runs COMMAND with its stdout in OUTFILE (stderr passed through), waits for it
with wait4 and prints its peak resident set size (ru_maxrss) in MiB; the exit
status is the command's.  Linux reports ru_maxrss in KiB.
"""
import os, sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
with open(sys.argv[1], "wb") as out:
    pid = os.fork()
    if pid == 0:
        os.dup2(out.fileno(), 1)
        try:
            os.execv(sys.argv[2], sys.argv[2:])
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
print(round(usage.ru_maxrss / 1024))
sys.exit(os.waitstatus_to_exitcode(status))
