# SPDX-License-Identifier: MIT
"""A local stand-in for the Hugging Face Hub, on 127.0.0.1, standard library only.

Two servers, as the Hub is two origins: the Hub itself (resolve URLs, the
repo API, its error headers) and a CDN on another port that LFS files redirect
to. It answers as huggingface.co answers huggingface_hub 2.x:

- GET/HEAD /{repo}/resolve/{rev}/{path} (datasets/ and spaces/ prefixed too):
  a regular file is served there (ETag: its git blob sha1); an LFS file
  (*.gguf, *.safetensors, *.bin, or anything >= 10 MiB) is a 302 to the CDN
  with X-Linked-Etag (its sha256), X-Linked-Size and X-Repo-Commit.
- GET /api/{models,datasets,spaces}/{repo}[/revision/{rev}]: sha, siblings.
- GET /api/{kind}s/{repo}/tree/{rev}?recursive=true: the files (oid, size, lfs),
  tree_page entries a page, the next page in a Link header (rel="next").
- errors: 401 + X-Error-Code RepoNotFound for a private repo without a valid
  token (and for a missing repo without one), 404 RepoNotFound /
  RevisionNotFound / EntryNotFound, 403 GatedRepo.
- ranges: 206 with Content-Range, 416 past the end; keep-alive (HTTP/1.1).
- faults, per CDN file: drop the connection after N body bytes, stall after N,
  corrupt one byte, ignore Range (200 and the whole file), shrink the file by
  N bytes; each applied a given number of times after skipping some requests,
  or a list of them, one a request.

Every request is logged: (origin, method, path, Range, body bytes sent, had an
Authorization header). The CDN records any Authorization it receives: the
token must never reach it.
"""
import hashlib
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LFS_SUFFIXES = (".gguf", ".safetensors", ".bin", ".pt", ".pth", ".onnx")


def git_blob_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Repo:
    """files: {path: bytes}; refs: {name: commit}; one commit per state."""

    def __init__(self, files, private=False, gated=False, kind="model", tags=()):
        self.kind = kind
        self.private = private
        self.gated = gated
        self.commits = {}
        self.refs = {}
        self.commit("main", files)
        for t in tags:
            self.refs[t] = self.refs["main"]

    def commit(self, branch, files):
        h = hashlib.sha1()
        for p in sorted(files):
            h.update(p.encode() + b"\0" + hashlib.sha256(files[p]).digest())
        h.update(str(len(self.commits)).encode())
        sha = h.hexdigest()
        self.commits[sha] = dict(files)
        self.refs[branch] = sha
        return sha

    def resolve(self, rev):
        if rev in self.commits:
            return rev
        return self.refs.get(rev)


def is_lfs(path, data):
    return path.endswith(LFS_SUFFIXES) or len(data) >= 10 << 20


class FakeHub:
    def __init__(self, tokens=("hf_test_token_0123456789",)):
        self.repos = {}          # (kind, repo_id) -> Repo
        self.tokens = set(tokens)
        self.blobs = {}          # sha256 -> bytes (the CDN's store)
        self.log = []
        self.cdn_auth_seen = []  # Authorization headers the CDN received (must stay empty)
        self.faults = {}         # sha256 -> dict(drop_after=N | stall_after=N | corrupt=True, times=K)
        self.tree_page = 1000    # entries per page of the tree listing
        self.tree_override = {}  # repo_id -> the entries its tree listing answers instead (hostile listings)
        self.lock = threading.Lock()
        self.hub = ThreadingHTTPServer(("127.0.0.1", 0), self._handler(cdn=False))
        self.cdn = ThreadingHTTPServer(("127.0.0.1", 0), self._handler(cdn=True))
        self.hub.daemon_threads = self.cdn.daemon_threads = True
        self.endpoint = "http://127.0.0.1:%d" % self.hub.server_address[1]
        self.cdn_origin = "http://127.0.0.1:%d" % self.cdn.server_address[1]
        self._threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in (self.hub, self.cdn)]

    # -- setup
    def add_repo(self, repo_id, files, **kw):
        r = Repo(files, **kw)
        self.repos[(r.kind, repo_id)] = r
        for c in r.commits.values():
            for data in c.values():
                self.blobs[hashlib.sha256(data).hexdigest()] = data
        return r

    def add_commit(self, repo_id, branch, files, kind="model"):
        r = self.repos[(kind, repo_id)]
        sha = r.commit(branch, files)
        for data in files.values():
            self.blobs[hashlib.sha256(data).hexdigest()] = data
        return sha

    def start(self):
        for t in self._threads:
            t.start()
        return self

    def stop(self):
        for s in (self.hub, self.cdn):
            s.shutdown()
            s.server_close()

    def bytes_sent(self, origin=None):
        with self.lock:
            return sum(e["sent"] for e in self.log if origin is None or e["origin"] == origin)

    def clear_log(self):
        with self.lock:
            self.log.clear()

    # -- the servers
    def _handler(self, cdn):
        hub = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_HEAD(self):
                self._serve(head=True)

            def do_GET(self):
                self._serve(head=False)

            def _record(self, sent):
                with hub.lock:
                    hub.log.append({"origin": "cdn" if cdn else "hub", "method": self.command,
                                    "path": self.path, "range": self.headers.get("Range"),
                                    "sent": sent, "auth": "Authorization" in self.headers})

            def _reply(self, status, headers=(), body=b"", head=False):
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head and body:
                    self.wfile.write(body)
                self._record(0 if head else len(body))

            def _error(self, status, code, msg, head):
                body = json.dumps({"error": msg}).encode()
                hs = [("Content-Type", "application/json")]
                if code:
                    hs.append(("X-Error-Code", code))
                hs.append(("X-Error-Message", msg))
                self._reply(status, hs, body, head)

            def _token_ok(self):
                a = self.headers.get("Authorization", "")
                return a.startswith("Bearer ") and a[7:] in hub.tokens

            def _serve(self, head):
                if cdn:
                    return self._serve_cdn(head)
                url = urllib.parse.urlsplit(self.path)
                parts = [urllib.parse.unquote(p) for p in url.path.split("/")[1:]]
                if parts and parts[0] == "api":
                    return self._serve_api(parts[1:], head)
                kind = "model"
                if parts and parts[0] in ("datasets", "spaces"):
                    kind = parts[0][:-1]
                    parts = parts[1:]
                # /{org}/{name}/resolve/{rev}/{path...}; the raw path keeps %2F in a revision
                raw = url.path.split("/")[1:]
                if kind != "model":
                    raw = raw[1:]
                if len(parts) < 5 or parts[2] != "resolve":
                    return self._error(404, None, "Not Found", head)
                repo_id = parts[0] + "/" + parts[1]
                rev = urllib.parse.unquote(raw[3])
                path = "/".join(urllib.parse.unquote(p) for p in raw[4:])
                found = self._at(kind, repo_id, rev, head)
                if found is None:
                    return
                repo, commit, files = found
                if path not in files:
                    return self._error(404, "EntryNotFound", "Entry not found", head)
                data = files[path]
                common = [("X-Repo-Commit", commit)]
                if is_lfs(path, data):
                    sha = hashlib.sha256(data).hexdigest()
                    loc = "%s/lfs/%s?expires=%d&sig=abc" % (hub.cdn_origin, sha, int(time.time()) + 3600)
                    return self._reply(302, common + [("Location", loc), ("X-Linked-Etag", '"%s"' % sha),
                                                      ("X-Linked-Size", str(len(data))), ("ETag", '"%s"' % sha)],
                                       b"", head)
                return self._send_data(data, common + [("ETag", '"%s"' % git_blob_sha1(data))], head, None)

            def _repo(self, kind, repo_id, head):
                repo = hub.repos.get((kind, repo_id))
                authed = self._token_ok()
                if repo is None or (repo.private and not authed):
                    # the Hub does not say whether a repo it hides exists
                    if authed or repo is None and "Authorization" in self.headers:
                        self._error(404 if repo is None else 401, "RepoNotFound", "Repository not found", head)
                    else:
                        self._error(401, "RepoNotFound", "Repository not found", head)
                    return None
                if repo.gated and not authed:
                    self._error(401, "GatedRepo", "Access to this repo is restricted", head)
                    return None
                return repo

            def _at(self, kind, repo_id, rev, head):
                """(repo, commit, files) at rev, or None with the error answered."""
                repo = self._repo(kind, repo_id, head)
                if repo is None:
                    return None
                commit = repo.resolve(rev)
                if commit is None:
                    self._error(404, "RevisionNotFound", "Invalid rev id: " + rev, head)
                    return None
                return repo, commit, repo.commits[commit]

            def _serve_api(self, parts, head):
                if not parts or parts[0] not in ("models", "datasets", "spaces"):
                    return self._error(404, None, "Not Found", head)
                kind = parts[0][:-1]
                parts = parts[1:]
                if len(parts) < 2:
                    return self._error(404, None, "Not Found", head)
                repo_id = parts[0] + "/" + parts[1]
                rev = "main"
                if len(parts) >= 4 and parts[2] in ("revision", "tree"):
                    rev = "/".join(parts[3:])
                found = self._at(kind, repo_id, rev, head)
                if found is None:
                    return
                repo, commit, files = found
                if len(parts) >= 4 and parts[2] == "tree":
                    return self._serve_tree(repo_id, kind, commit, files, head)
                info = {"id": repo_id, "sha": commit, "private": repo.private,
                        "siblings": [{"rfilename": p} for p in sorted(files)]}
                body = json.dumps(info).encode()
                return self._reply(200, [("Content-Type", "application/json")], body, head)

            def _serve_tree(self, repo_id, kind, commit, files, head):
                entries, dirs = [], set()
                for p in sorted(files):
                    d = files[p]
                    e = {"type": "file", "oid": git_blob_sha1(d), "size": len(d), "path": p}
                    if is_lfs(p, d):
                        e["lfs"] = {"oid": hashlib.sha256(d).hexdigest(), "size": len(d), "pointerSize": 134}
                    entries.append(e)
                    parts = p.split("/")[:-1]
                    for k in range(1, len(parts) + 1):
                        dirs.add("/".join(parts[:k]))
                entries += [{"type": "directory", "oid": "0" * 40, "size": 0, "path": d} for d in sorted(dirs)]
                if repo_id in hub.tree_override:
                    entries = hub.tree_override[repo_id]
                q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                start = int(q.get("cursor", ["0"])[0])
                page = entries[start:start + hub.tree_page]
                hs = [("Content-Type", "application/json")]
                if start + hub.tree_page < len(entries):
                    nxt = "%s/api/%ss/%s/tree/%s?recursive=true&cursor=%d" % (hub.endpoint, kind, repo_id, commit,
                                                                              start + hub.tree_page)
                    # a first-page link before the next one: the entry is found by its rel, not its place
                    first = "%s/api/%ss/%s/tree/%s?recursive=true" % (hub.endpoint, kind, repo_id, commit)
                    hs.append(("Link", '<%s>; rel="first", <%s>; rel="next"' % (first, nxt)))
                return self._reply(200, hs, json.dumps(page).encode(), head)

            def _serve_cdn(self, head):
                if "Authorization" in self.headers:
                    with hub.lock:
                        hub.cdn_auth_seen.append(self.headers["Authorization"])
                url = urllib.parse.urlsplit(self.path)
                parts = url.path.split("/")
                if len(parts) != 3 or parts[1] != "lfs" or parts[2] not in hub.blobs:
                    return self._error(404, None, "NoSuchKey", head)
                sha = parts[2]
                return self._send_data(hub.blobs[sha], [("ETag", '"%s"' % sha)], head, sha)

            def _send_data(self, data, headers, head, sha):
                fault = None
                if sha is not None:
                    with hub.lock:
                        f = hub.faults.get(sha)
                        if isinstance(f, list):  # a sequence: one fault a request, in order
                            f = f.pop(0) if f else None
                            if f is not None:
                                f = dict(f, times=1)
                        if f and f.get("skip", 0) > 0:
                            f["skip"] -= 1
                        elif f and f.get("times", 1) > 0:
                            f["times"] = f.get("times", 1) - 1
                            fault = dict(f)
                if fault and fault.get("shrink"):
                    data = data[:len(data) - fault["shrink"]]
                size = len(data)
                rng = self.headers.get("Range")
                if fault and fault.get("ignore_range"):
                    rng = None
                status, first, last = 200, 0, size - 1
                if rng:
                    try:
                        unit, spec = rng.split("=", 1)
                        a, b = spec.split("-", 1)
                        assert unit.strip() == "bytes" and a
                        first = int(a)
                        last = int(b) if b else size - 1
                    except Exception:
                        return self._error(400, None, "bad Range", head)
                    if first >= size:
                        return self._reply(416, headers + [("Content-Range", "bytes */%d" % size)], b"", head)
                    last = min(last, size - 1)
                    status = 206
                body = data[first:last + 1]
                if fault and fault.get("corrupt"):
                    body = bytearray(body)
                    if body:
                        body[len(body) // 2] ^= 0xFF
                    body = bytes(body)
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                if status == 206:
                    self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, size))
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if head:
                    self._record(0)
                    return
                sent = 0
                try:
                    if fault and ("drop_after" in fault or "stall_after" in fault):
                        n = fault.get("drop_after", fault.get("stall_after"))
                        self.wfile.write(body[:n])
                        self.wfile.flush()
                        sent = min(n, len(body))
                        if "stall_after" in fault:
                            time.sleep(fault.get("stall_seconds", 30))
                        self.close_connection = True
                        return
                    self.wfile.write(body)
                    sent = len(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    self._record(sent)

        return H


if __name__ == "__main__":
    # A Hub in its own process (bench/bench_hub.py: the measuring process stays
    # small): fake_hub.py ORG/REPO=DIR ...; prints the endpoint; GET /_stats
    # answers {"bytes_sent": N} and clears the log.
    import sys
    h = FakeHub()
    for arg in sys.argv[1:]:
        import os
        name, d = arg.split("=", 1)
        files = {}
        for root, _, names in os.walk(d):
            for n in names:
                p = os.path.join(root, n)
                with open(p, "rb") as f:
                    files[os.path.relpath(p, d)] = f.read()
        h.add_repo(name, files)
    orig = h.hub.RequestHandlerClass._serve

    def serve(self, head, _orig=orig):
        if self.path == "/_stats":
            n = h.bytes_sent()
            h.clear_log()
            body = json.dumps({"bytes_sent": n}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        return _orig(self, head)
    h.hub.RequestHandlerClass._serve = serve
    h.start()
    print(h.endpoint, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        h.stop()
