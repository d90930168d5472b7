#!/usr/bin/env python3
"""An Alertmanager webhook receiver: appends each notification's JSON body,
one line each after the time it came (seconds since the epoch), to a file. Usage: webhook.py PORTFILE OUTFILE (binds
127.0.0.1 on a free port and writes the port to PORTFILE)."""
import http.server
import sys
import time


class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(sys.argv[2], "ab") as f:
            f.write(b"%.3f " % time.time() + body.replace(b"\n", b" ") + b"\n")
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


srv = http.server.HTTPServer(("127.0.0.1", 0), Hook)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
