# SPDX-License-Identifier: MIT
"""What the net tests share: counted checks and the exit status."""
import sys

failures = 0
checks = 0


def check(cond, what):
    """Count a check; print what failed."""
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL:", what)


def finish():
    """Print the counts and exit 1 when a check failed."""
    print("%d checks, %d failed" % (checks, failures))
    sys.exit(1 if failures else 0)
