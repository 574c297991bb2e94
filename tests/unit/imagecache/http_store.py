#!/usr/bin/env python3
"""An image store for the image cache's tests, on 127.0.0.1 only, at an ephemeral port.

usage: http_store.py ROOT LOG. Prints its port on stdout once listening. Paths:
  /store/NAME  the file ROOT/NAME
  /cut/NAME    images announce their full length, send half and close (interrupted transfer)
  /slow/NAME   images sent in 64 KiB pieces 20 ms apart (so concurrent fetches overlap)
  /stall/NAME  images announce their full length, send 1 KiB and then nothing for 30 s
  /trickle/NAME images announce their full length and come 1 KiB every 50 ms (20 KiB/s, well
               over the stall limit's 1 KiB/s: only a whole-transfer limit stops them early);
               the server gives up after 60 s
Anything else, or a missing file, is 404. Every image (not .sha256) served is logged to LOG.
"""
import http.server
import os
import sys
import time

ROOT, LOG = sys.argv[1], sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def do_GET(self):
        mode, _, name = self.path.lstrip("/").partition("/")
        path = os.path.join(ROOT, name)
        modes = ("store", "cut", "slow", "stall", "trickle")
        if mode not in modes or "/" in name or not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as f:
            data = f.read()
        image = not name.endswith(".sha256")
        if image:
            with open(LOG, "a") as log:
                log.write(name + "\n")
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if image and mode == "cut":
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
        elif image and mode == "slow":
            for i in range(0, len(data), 65536):
                self.wfile.write(data[i : i + 65536])
                self.wfile.flush()
                time.sleep(0.02)
        elif image and mode == "stall":
            self.wfile.write(data[:1024])
            self.wfile.flush()
            time.sleep(30)  # the client gives up first (its stall limit); the thread then ends
            self.close_connection = True
        elif image and mode == "trickle":
            self.trickle(data)
        else:
            self.wfile.write(data)

    def trickle(self, data):
        given_up = time.monotonic() + 60
        try:
            for i in range(0, len(data), 1024):
                if time.monotonic() > given_up:
                    break
                self.wfile.write(data[i : i + 1024])
                self.wfile.flush()
                time.sleep(0.05)
        except OSError:
            pass  # the client went away (its time limit)
        self.close_connection = True


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
