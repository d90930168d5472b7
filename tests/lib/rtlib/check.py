"""PASS/FAIL lines for tests/run, with what differs when a check fails."""
import sys


class Checker:
    """check() prints "PASS PREFIXwhat" or "FAIL PREFIXwhat" and, on a
    failure, the keys whose values differ (GOT and WANT name the two sides);
    done() exits 1 after any failure. need_want: an empty expectation fails
    (a tally that counted nothing proves nothing)."""

    def __init__(self, prefix="", got="got", want="want", need_want=False):
        self.prefix, self.got, self.want, self.need_want = prefix, got, want, need_want
        self.failed = 0

    def check(self, what, got, want):
        empty = self.need_want and not want
        if got == want and not empty:
            print(f"PASS {self.prefix}{what}")
            return True
        self.failed += 1
        print(f"FAIL {self.prefix}{what}" + (" (the tally is empty)" if empty else ""))
        if isinstance(got, dict) and isinstance(want, dict):
            for k in sorted(set(got) | set(want), key=str):
                if got.get(k) != want.get(k):
                    print(f"  {k}: {self.got} {got.get(k)} {self.want} {want.get(k)}")
        else:
            print(f"  {self.got} {got}, {self.want} {want}")
        return False

    def ok(self, name, cond, what, why=""):
        """A check the caller decided: "PASS name: what", or "FAIL name: what: why"."""
        if cond:
            print("PASS %s: %s" % (name, what))
        else:
            self.failed += 1
            print("FAIL %s: %s%s" % (name, what, (": " + why) if why else ""))
        return bool(cond)

    def done(self):
        sys.exit(1 if self.failed else 0)


def errors(errs):
    """For a check whose caller prints PASS or FAIL itself: the problems
    found, on one line, and the exit status (1 when there are any)."""
    if errs:
        print("; ".join(errs))
        return 1
    return 0
