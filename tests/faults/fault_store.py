"""An image store that misbehaves on purpose: an HTTP server on 127.0.0.1 that serves each image's
NAME.sha256 truthfully and the image itself as its MODE says (the image's name is MODE-anything):

  ok         the image, whole
  500        HTTP 500
  reset      the headers and half the body, then a TCP reset
  truncated  a Content-Length of half the image, and that half
  wrong      other bytes of the same length
  slow       the right Content-Length, then one byte a second
  file       a redirect to file:///etc/shadow
  huge       Content-Length: 2^60, a few bytes, then the connection closed
"""

import hashlib
import http.server
import os
import socket
import struct
import threading
import time

MODES = ("500", "reset", "truncated", "wrong", "slow", "file", "huge")


class FaultStore:
    def __init__(self):
        self.images = {}
        self.requests = []
        store = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                name = self.path.lstrip("/")
                store.requests.append(name)
                if name.endswith(".sha256") and name[:-7] in store.images:
                    body = (store.digest(name[:-7]) + "\n").encode()
                    return self.send(200, body)
                if name not in store.images:
                    return self.send(404, b"no such image\n")
                store.serve(self, name.split("-", 1)[0], store.images[name])

            def send(self, code, body, length=None):
                self.send_response(code)
                self.send_header("Content-Length", str(len(body) if length is None else length))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the node gave up (its disk is full)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.stopping = threading.Event()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def publish(self, name, size=100_000):
        self.images[name] = os.urandom(size)

    def digest(self, name):
        """The hex SHA-256 of a published image (its name in a node's cache)."""
        return hashlib.sha256(self.images[name]).hexdigest()

    def serve(self, h, mode, data):
        if mode == "ok":
            return h.send(200, data)
        if mode == "500":
            return h.send(500, b"internal error\n")
        if mode == "truncated":
            return h.send(200, data[: len(data) // 2])
        if mode == "wrong":
            return h.send(200, os.urandom(len(data)))
        if mode == "file":
            h.send_response(302)
            h.send_header("Location", "file:///etc/shadow")
            h.send_header("Content-Length", "0")
            h.end_headers()
            return None
        if mode == "huge":
            h.send_response(200)
            h.send_header("Content-Length", str(1 << 60))
            h.end_headers()
            h.wfile.write(data[:1000])
            h.wfile.flush()
            h.close_connection = True
            return None
        if mode in ("reset", "slow"):
            h.send_response(200)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            if mode == "reset":
                h.wfile.write(data[: len(data) // 2])
                h.wfile.flush()
                h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                        struct.pack("ii", 1, 0))
                h.close_connection = True
                return None
            for byte in data:
                if self.stopping.is_set():
                    break
                try:
                    h.wfile.write(bytes([byte]))
                    h.wfile.flush()
                except OSError:
                    break
                time.sleep(1)
            h.close_connection = True
            return None
        raise ValueError(mode)

    def stop(self):
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()
