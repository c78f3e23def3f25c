"""Waiting for an Export or Import job, shared by the tests that start them."""
import time


def wait(describe, key, status_key):
    """Polls `describe()[key]` until its `status_key` leaves IN_PROGRESS."""
    for _ in range(600):
        d = describe()[key]
        if d[status_key] != "IN_PROGRESS":
            return d
        time.sleep(0.05)
    raise AssertionError("the job did not finish")
