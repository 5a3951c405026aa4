#!/usr/bin/env python3
"""A small fake of Buildkite's REST API for tracker fetch's tests.

usage: fake-buildkite.py DIR

Serves, on 127.0.0.1 (a free port), the parts of
https://buildkite.com/docs/api that tracker fetch uses, in their real
shapes:

  GET /v2/organizations/ORG/pipelines/SLUG/builds
      ?branch=B&created_from=ISO8601&per_page=N&page=P
  GET /v2/organizations/ORG/pipelines/SLUG/builds/NUMBER/artifacts
      ?per_page=N&page=P
  GET .../builds/NUMBER/jobs/JOB/artifacts/ID/download
      302 to the storage host, body {"url": ...}

and a storage host on 127.0.0.2 (else 127.0.0.1 on another port) that
serves the files, as S3 does for a presigned URL: a request that carries
an Authorization header as well is refused (400).

DIR holds the data, read again on every request:

  DIR/config.json     {"org": ..., "pipeline": ..., "token": ...,
                       "page_size": N (optional, caps per_page)}
  DIR/builds/N/build.json   {"branch", "commit", "state", "created_at"}
  DIR/builds/N/JOBNAME/...  the artifacts of job JOBNAME of build N
                            (path relative to the job directory)
  DIR/faults.json     optional: [{"id": "x", "match": "regex on the path",
                       "times": 1, "status": 429, "headers": {...},
                       "body": "...", "hang": seconds}]
                       the first "times" requests whose path matches get
                       the fault instead of the answer

It writes DIR/ports ("API_URL STORAGE_URL") once listening, and logs
every request as one JSON line to DIR/requests.log:
{"host": "api"|"storage", "path": ..., "headers": {...}}.
"""
import hashlib
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlencode, urlsplit

DIR = sys.argv[1]
LOCK = threading.Lock()
FAULT_COUNTS = {}
URLS = {}


def read_json(name, default=None):
    try:
        with open(os.path.join(DIR, name), encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return default


def uid(*parts):
    return str(uuid.UUID(hashlib.md5("/".join(map(str, parts)).encode()).hexdigest()))


def log(host, handler):
    line = json.dumps({"host": host, "path": handler.path,
                       "headers": dict(handler.headers.items())})
    with LOCK:
        with open(os.path.join(DIR, "requests.log"), "a", encoding="utf-8") as f:
            f.write(line + "\n")


def builds_of(cfg):
    root = os.path.join(DIR, "builds")
    out = []
    for n in sorted(os.listdir(root) if os.path.isdir(root) else [], key=int):
        meta = read_json(os.path.join("builds", n, "build.json"), {})
        out.append((int(n), meta))
    out.sort(key=lambda b: -b[0])
    return out


def artifacts_of(cfg, number):
    """(artifact json, local file) for every file of build number."""
    base = os.path.join(DIR, "builds", str(number))
    api = URLS["api"]
    org, pipe = cfg["org"], cfg["pipeline"]
    out = []
    for job in sorted(os.listdir(base)):
        jdir = os.path.join(base, job)
        if not os.path.isdir(jdir):
            continue
        job_id = uid(number, job)
        for root, _, files in sorted(os.walk(jdir)):
            for name in sorted(files):
                local = os.path.join(root, name)
                path = os.path.relpath(local, jdir)
                aid = uid(number, job, path)
                url = "%s/v2/organizations/%s/pipelines/%s/builds/%d/jobs/%s/artifacts/%s" % (
                    api, org, pipe, number, job_id, aid)
                with open(local, "rb") as f:
                    data = f.read()
                out.append(({
                    "id": aid,
                    "job_id": job_id,
                    "url": url,
                    "download_url": url + "/download",
                    "state": "finished",
                    "path": path,
                    "dirname": os.path.dirname(path),
                    "filename": os.path.basename(path),
                    "mime_type": "application/json" if name.endswith(".json")
                    else "application/octet-stream",
                    "file_size": len(data),
                    "sha1sum": hashlib.sha1(data).hexdigest(),
                    "glob_path": None,
                    "original_path": None,
                }, local))
    return out


def build_json(cfg, number, meta):
    api, web = URLS["api"], "https://buildkite.com"
    org, pipe = cfg["org"], cfg["pipeline"]
    base = os.path.join(DIR, "builds", str(number))
    jobs = []
    for job in sorted(os.listdir(base)):
        if not os.path.isdir(os.path.join(base, job)):
            continue
        jid = uid(number, job)
        jobs.append({
            "id": jid, "graphql_id": "Sm9iLS0t" + jid[:8], "type": "script",
            "name": ":julia: " + job, "step_key": job, "agent_query_rules": ["queue=default"],
            "state": "passed", "build_url": "%s/v2/organizations/%s/pipelines/%s/builds/%d"
            % (api, org, pipe, number),
            "web_url": "%s/%s/%s/builds/%d#%s" % (web, org, pipe, number, jid),
            "log_url": "%s/v2/organizations/%s/pipelines/%s/builds/%d/jobs/%s/log"
            % (api, org, pipe, number, jid),
            "command": "tracker run --key %s -- make" % job, "soft_failed": False,
            "exit_status": 0, "artifact_paths": "tracker-artifacts/*",
            "created_at": meta.get("created_at"), "started_at": meta.get("created_at"),
            "finished_at": meta.get("created_at"), "retried": False, "parallel_group_index": None,
        })
    return {
        "id": uid("build", number), "graphql_id": "QnVpbGQtLS0" + str(number),
        "url": "%s/v2/organizations/%s/pipelines/%s/builds/%d" % (api, org, pipe, number),
        "web_url": "%s/%s/%s/builds/%d" % (web, org, pipe, number),
        "number": number, "state": meta.get("state", "passed"), "blocked": False,
        "cancel_reason": None, "message": meta.get("message", "Merge pull request"),
        "commit": meta.get("commit", "HEAD"), "branch": meta.get("branch", "main"),
        "tag": None, "env": {}, "source": "webhook",
        "creator": {"id": uid("user"), "name": "Keith Pitt", "email": "keith@example.com",
                    "avatar_url": "https://www.gravatar.com/avatar/e14f55d3",
                    "created_at": "2015-05-22T12:36:45.309Z"},
        "jobs": jobs, "created_at": meta.get("created_at"),
        "scheduled_at": meta.get("created_at"), "started_at": meta.get("created_at"),
        "finished_at": meta.get("created_at"), "meta_data": {}, "pull_request": None,
        "rebuilt_from": None,
        "pipeline": {"id": uid("pipeline"), "slug": pipe, "name": pipe,
                     "repository": "git@github.com:example/%s.git" % pipe},
    }


def paged(items, query, cfg, path):
    per = int(query.get("per_page", ["30"])[0])
    per = max(1, min(per, 100, int(cfg.get("page_size", 100))))
    page = max(1, int(query.get("page", ["1"])[0]))
    last = max(1, (len(items) + per - 1) // per)
    links = []

    def link(p, rel):
        q = {k: v[0] for k, v in query.items()}
        q["page"] = str(p)
        q["per_page"] = str(per)
        return '<%s%s?%s>; rel="%s"' % (URLS["api"], path, urlencode(q), rel)

    if page < last:
        links.append(link(page + 1, "next"))
        links.append(link(last, "last"))
    if page > 1:
        links.append(link(1, "first"))
        links.append(link(page - 1, "prev"))
    return items[(page - 1) * per:page * per], ", ".join(links)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    host_name = "api"
    # one write per response (headers and body), flushed after each
    # request: no Nagle and delayed-ACK stall between them
    wbufsize = 1 << 16

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, headers=None, ctype="application/json; charset=utf-8"):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def fault(self):
        for f in read_json("faults.json", []) or []:
            if f.get("host", "api") != self.host_name:
                continue
            if not re.search(f.get("match", ""), self.path):
                continue
            with LOCK:
                n = FAULT_COUNTS.get(f["id"], 0)
                if n >= f.get("times", 1):
                    continue
                FAULT_COUNTS[f["id"]] = n + 1
            if f.get("hang"):
                time.sleep(f["hang"])
                self.close_connection = True
                return True
            self.send(f.get("status", 500), f.get("body", '{"message":"fault"}'),
                      f.get("headers"))
            return True
        return False

    def do_GET(self):
        log(self.host_name, self)
        if self.fault():
            return
        cfg = read_json("config.json")
        if self.host_name == "storage":
            return self.storage(cfg)
        if self.headers.get("Authorization") != "Bearer " + cfg["token"]:
            return self.send(401, '{"message":"Authentication required. Please supply a '
                             'valid API Access Token: https://buildkite.com/docs/apis/rest-api'
                             '#authentication"}')
        u = urlsplit(self.path)
        query = parse_qs(u.query)
        prefix = "/v2/organizations/%s/pipelines/%s/builds" % (cfg["org"], cfg["pipeline"])
        if not u.path.startswith(prefix):
            return self.send(404, '{"message":"No pipeline found"}')
        rest = u.path[len(prefix):]
        if rest == "":
            return self.builds(cfg, query, u.path)
        m = re.fullmatch(r"/(\d+)/artifacts", rest)
        if m:
            return self.artifacts(cfg, int(m.group(1)), query, u.path)
        m = re.fullmatch(r"/(\d+)/jobs/([0-9a-f-]+)/artifacts/([0-9a-f-]+)/download", rest)
        if m:
            return self.download(cfg, int(m.group(1)), m.group(3))
        return self.send(404, '{"message":"Not Found"}')

    def builds(self, cfg, query, path):
        out = []
        branch = query.get("branch", [None])[0]
        since = query.get("created_from", [None])[0]
        for number, meta in builds_of(cfg):
            if branch and meta.get("branch") != branch:
                continue
            if since and meta.get("created_at", "") < since:
                continue
            out.append(build_json(cfg, number, meta))
        page, link = paged(out, query, cfg, path)
        self.send(200, json.dumps(page), {"Link": link} if link else None)

    def artifacts(self, cfg, number, query, path):
        if not os.path.isdir(os.path.join(DIR, "builds", str(number))):
            return self.send(404, '{"message":"No build found"}')
        arts = [a for a, _ in artifacts_of(cfg, number)]
        page, link = paged(arts, query, cfg, path)
        self.send(200, json.dumps(page), {"Link": link} if link else None)

    def download(self, cfg, number, aid):
        for a, local in artifacts_of(cfg, number):
            if a["id"] == aid:
                url = "%s/artifacts/%s/%s?X-Amz-Signature=%s" % (
                    URLS["storage"], number, quote(a["path"]), uid("sig", aid))
                return self.send(302, json.dumps({"url": url}), {"Location": url})
        return self.send(404, '{"message":"No artifact found"}')

    def storage(self, cfg):
        if "Authorization" in self.headers:
            return self.send(400, "<Error><Code>InvalidArgument</Code><Message>Only one "
                             "auth mechanism allowed</Message></Error>", ctype="application/xml")
        m = re.fullmatch(r"/artifacts/(\d+)/([^?]+)\?.*", self.path)
        if m:
            number = int(m.group(1))
            for a, local in artifacts_of(cfg, number):
                if quote(a["path"]) == m.group(2):
                    with open(local, "rb") as f:
                        return self.send(200, f.read(), ctype=a["mime_type"])
        self.send(404, "<Error><Code>NoSuchKey</Code></Error>", ctype="application/xml")


class Storage(Handler):
    host_name = "storage"


def serve(host, handler):
    srv = ThreadingHTTPServer((host, 0), handler)
    srv.daemon_threads = True
    return srv


def main():
    api = serve("127.0.0.1", Handler)
    try:
        storage = serve("127.0.0.2", Storage)
    except OSError:
        storage = serve("127.0.0.1", Storage)
    URLS["api"] = "http://127.0.0.1:%d" % api.server_address[1]
    URLS["storage"] = "http://%s:%d" % storage.server_address
    for s in (api, storage):
        threading.Thread(target=s.serve_forever, daemon=True).start()
    tmp = os.path.join(DIR, "ports.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("%s %s\n" % (URLS["api"], URLS["storage"]))
    os.rename(tmp, os.path.join(DIR, "ports"))
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
