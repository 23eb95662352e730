# docs/guides/specs/ci-hello.py: the service docs/guides/specs/ci.yaml measures
# (standard library only, so the CI guide's examples need no build). Each
# answer waits 5 ms, as a service waiting on its database would: a CI
# runner's other jobs barely move a waiting service's throughput, where they
# would move a CPU-bound one's by a third, and the examples' nightly verdicts
# (scripts/test-ci-guides.sh runs two nights) then judge the service, not
# the runner's neighbours.
import http.server
import os
import time


class Hello(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Head and body go out in two writes: without this, Nagle's algorithm
    # and the client's delayed ACK hold every answer ~40 ms.
    disable_nagle_algorithm = True

    def do_GET(self):
        time.sleep(0.005)
        body = b"hello\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Hello).serve_forever()
