# docs/guides/specs/ci-hello.py: the service docs/guides/specs/ci.yaml measures
# (standard library only, so the CI guide's examples need no build).
import http.server
import os


class Hello(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Head and body go out in two writes: without this, Nagle's algorithm
    # and the client's delayed ACK hold every answer ~40 ms.
    disable_nagle_algorithm = True

    def do_GET(self):
        body = b"hello\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Hello).serve_forever()
