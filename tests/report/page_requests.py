#!/usr/bin/python3
"""Exit 1 when Chromium's network log (--log-net-log FILE) shows a request
the page made for anything but file: URLs; print each. The browser's own
background requests (updates, time, accounts) are not the page's: a
request is the page's when its network isolation key is the page's origin
(file://). tests/test_cmd_report.c runs it on a report, and on a page with
a remote image to prove it can fail."""

import json
import sys


def main():
    log = json.load(open(sys.argv[1]))
    made = set()
    for ev in log.get("events", []):
        p = ev.get("params") or {}
        url, key = p.get("url", ""), p.get("network_isolation_key", "")
        if url and not url.startswith(("file:", "data:", "about:")) and key.startswith("file://"):
            made.add(url)
    for url in sorted(made):
        print(f"the page requested {url}")
    return 1 if made else 0


if __name__ == "__main__":
    sys.exit(main())
