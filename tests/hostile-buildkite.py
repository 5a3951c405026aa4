#!/usr/bin/env python3
"""A hostile fake of Buildkite's REST API for tracker fetch's bounds tests.

usage: hostile-buildkite.py DIR

Serves on 127.0.0.1 (a free port, written to DIR/port) one pipeline,
clima/coupler, with one build (number 1) whose artifacts are the record
and profile in DIR/files/ (a `tracker run --artifacts` directory's
files), in the real shapes of https://buildkite.com/docs/api: builds and
artifact lists paged by a Link header, downloads answered 302 to
/files/NAME. The API paths want "Authorization: Bearer $TOKEN" (DIR/token)
and answer 401 without it. DIR/mode (read on every request) picks the
attack:

  builds-loop       the builds list's next link is the page itself
  artifacts-endless page 1 lists the record and profile, then every page
                    100 more artifacts and a next link to a new page
  artifacts-loop    the artifact list's next link is page 1 again
  drip              the record is sent at 2 bytes a second
  steady            the record is sent at 8 KiB a second, 10 MB long
  gzip-bomb         the profile is DIR/bomb.gz, Content-Encoding: gzip
  gzip-honest       the profile as it is, gzip'd, Content-Encoding: gzip
  big-profile       the profile is DIR/big-size bytes of "x", sent in 1 MiB
                    pieces as they are made (junk, no stored profile)
  big-gzip          the profile is DIR/big.gz, Content-Encoding: gzip, sent
                    in 1 MiB pieces
  record-first      one artifact a page, the record before its profile
  (anything else)   an honest API

It also works as an HTTP proxy (a request for an absolute URL is served
the same), so a test can point --api at a name that is not loopback.
Every request is logged to DIR/requests.log as one JSON line:
{"path": ..., "auth": true|false}.
"""
import gzip
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

DIR = sys.argv[1]
BASE = "/v2/organizations/clima/pipelines/coupler"


def read(name, default=""):
    try:
        with open(os.path.join(DIR, name), encoding="utf-8") as f:
            return f.read().strip()
    except FileNotFoundError:
        return default


def files():
    d = os.path.join(DIR, "files")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def artifact(origin, name, aid):
    url = "%s%s/builds/1/jobs/job-1/artifacts/%s" % (origin, BASE, aid)
    size = os.path.getsize(os.path.join(DIR, "files", name)) \
        if os.path.exists(os.path.join(DIR, "files", name)) else 100
    return {"id": aid, "job_id": "job-1", "url": url, "download_url": url + "/download",
            "state": "finished", "path": "tracker-artifacts/" + name,
            "dirname": "tracker-artifacts", "filename": name,
            "mime_type": "application/octet-stream", "file_size": size}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, headers=None):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def stream(self, total, pieces, headers=None):
        """total bytes from the iterator pieces, never all in memory"""
        self.send_response(200)
        self.send_header("Content-Length", str(total))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            for piece in pieces:
                self.wfile.write(piece)
        except OSError:
            pass

    def drip(self, total, chunk, every):
        self.send_response(200)
        self.send_header("Content-Length", str(total))
        self.end_headers()
        sent = 0
        try:
            while sent < total:
                self.wfile.write(b"x" * chunk)
                self.wfile.flush()
                sent += chunk
                time.sleep(every)
        except OSError:
            pass

    def do_GET(self):
        u = urlsplit(self.path)
        host = u.netloc or self.headers.get("Host", "127.0.0.1")
        origin = "http://" + host
        path, query = u.path, parse_qs(u.query)
        auth = self.headers.get("Authorization")
        with open(os.path.join(DIR, "requests.log"), "a", encoding="utf-8") as f:
            f.write(json.dumps({"path": self.path, "auth": auth is not None}) + "\n")
        mode = read("mode")
        if path.startswith("/files/"):
            name = path[len("/files/"):]
            if mode == "drip" and name.endswith(".json"):
                return self.drip(100000, 2, 1)
            if mode == "steady" and name.endswith(".json"):
                return self.drip(10 << 20, 1024, 0.125)
            if mode == "big-profile" and not name.endswith(".json"):
                total = int(read("big-size"))
                piece = b"x" * (1 << 20)
                return self.stream(total, (piece[:min(len(piece), total - at)]
                                           for at in range(0, total, len(piece))))
            if mode == "big-gzip" and not name.endswith(".json"):
                path = os.path.join(DIR, "big.gz")

                def pieces():
                    with open(path, "rb") as f:
                        while True:
                            piece = f.read(1 << 20)
                            if not piece:
                                return
                            yield piece
                return self.stream(os.path.getsize(path), pieces(), {"Content-Encoding": "gzip"})
            if mode == "gzip-honest" and not name.endswith(".json"):
                with open(os.path.join(DIR, "files", name), "rb") as f:
                    return self.send(200, gzip.compress(f.read()), {"Content-Encoding": "gzip"})
            if mode == "gzip-bomb" and not name.endswith(".json"):
                with open(os.path.join(DIR, "bomb.gz"), "rb") as f:
                    return self.send(200, f.read(), {"Content-Encoding": "gzip"})
            with open(os.path.join(DIR, "files", name), "rb") as f:
                return self.send(200, f.read())
        if not path.startswith(BASE):
            return self.send(404, '{"message": "No route"}')
        if auth != "Bearer " + read("token"):
            return self.send(401, '{"message": "Authentication required"}')
        rest = path[len(BASE):]
        page = int(query.get("page", ["1"])[0])
        if rest == "/builds":
            headers = {}
            if mode == "builds-loop":
                headers["Link"] = '<%s%s>; rel="next"' % (origin, self.path if not u.netloc
                                                         else u.path + "?" + u.query)
            build = {"number": 1, "branch": "main", "commit": "0" * 40, "state": "passed",
                     "created_at": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                     "jobs": [{"id": "job-1", "step_key": "k"}]}
            return self.send(200, json.dumps([build]), headers)
        if rest == "/builds/1/artifacts":
            items, headers = [], {}
            if mode == "record-first":
                # one artifact a page, the record before its profile
                names = files()
                order = sorted(range(len(names)), key=lambda i: not names[i].endswith(".json"))
                if page <= len(order):
                    i = order[page - 1]
                    items = [artifact(origin, names[i], "a%d" % i)]
                if page < len(order):
                    headers["Link"] = '<%s%s/builds/1/artifacts?%s>; rel="next"' % (
                        origin, BASE, urlencode({"per_page": "1", "page": str(page + 1)}))
                return self.send(200, json.dumps(items), headers)
            if page == 1:
                items = [artifact(origin, n, "a%d" % i) for i, n in enumerate(files())]
            if mode in ("artifacts-endless", "artifacts-loop"):
                items += [artifact(origin, "junk-%d-%d.log" % (page, i), "j%d-%d" % (page, i))
                          for i in range(100)]
                nxt = page + 1 if mode == "artifacts-endless" else 1
                q = {"per_page": "100", "page": str(nxt)}
                headers["Link"] = '<%s%s/builds/1/artifacts?%s>; rel="next"' % (
                    origin, BASE, urlencode(q))
            return self.send(200, json.dumps(items), headers)
        if rest.startswith("/builds/1/jobs/job-1/artifacts/") and rest.endswith("/download"):
            aid = rest.split("/")[-2]
            names = files()
            if aid.startswith("a") and int(aid[1:]) < len(names):
                loc = "%s/files/%s" % (origin, names[int(aid[1:])])
                return self.send(302, json.dumps({"url": loc}), {"Location": loc})
            return self.send(404, '{"message": "Not Found"}')
        return self.send(404, '{"message": "Not Found"}')


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(os.path.join(DIR, "port.tmp"), "w", encoding="utf-8") as f:
    f.write(str(server.server_address[1]))
os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
server.serve_forever()
