# Junction's Python web server: it serves one "wsgi", "resource" or "wap"
# web path of a node's web transport, as a Crossbar.io router worker
# serves it.
#
# This program is part of Junction: the junction binary embeds it (package
# internal/pyweb) and starts it once per such path, as
#
#     <python> -u - '<settings as JSON>'
#
# with this program on stdin, the node directory as working directory,
# the worker's options.pythonpath in PYTHONPATH, and two file descriptors:
#
#   3  a listening Unix stream socket, in a directory only the node's user
#      can enter: the node's reverse proxy connects there and speaks
#      HTTP/1.1 (persistent connections, chunked bodies both ways);
#   4  a pipe to the node: one JSON line, then it is closed:
#        {"ready": true}                         serving
#        {"error": "...", "key": K, "traceback": "..."}
#                                                cannot serve; exit 2 (K is
#                                                the config key at fault:
#                                                "module", "object",
#                                                "classname", "templates",
#                                                "routes[i].render" ... or "")
#
# Settings: {"path": JSON path, "kind": "wsgi" or "resource", "prefix":
# the mount path ("" at the root, "/a/b"), "startdir", and for "wsgi"
# "module", "object", "maxthreads", for "resource" "classname", "extra",
# for "wap" "templates" (a directory) or "templates_package" and
# "templates_resource", "sandbox", "routes" ([{"path", "method", "call",
# "render"}]) and "maxthreads"}.
#
# The proxy sends the full request path (the mount path, then the rest)
# and these headers, which it sets itself (replacing any the client sent):
# X-Forwarded-Host (the client's Host), X-Forwarded-Proto,
# X-Forwarded-Port, X-Real-Ip (the client's address). A WSGI application
# gets SCRIPT_NAME = the mount path and PATH_INFO = the rest, HTTP_HOST,
# SERVER_NAME, SERVER_PORT, wsgi.url_scheme and REMOTE_ADDR from those
# headers, as under Crossbar (Twisted's WSGIResource). A resource is
# mounted at the mount path of a Twisted Web site, whose requests report
# the same host, scheme and client.
#
# "wsgi" uses the standard library only: a thread per connection, and at
# most "maxthreads" requests in the application at once (Crossbar's thread
# pool bound). "resource" needs Twisted. "wap" is a WSGI application of
# this program's, served the same way; it needs Jinja2 and werkzeug, and
# makes its WAMP calls by HTTP on the Unix socket "call.sock" beside the
# listening one, where the node answers them as its Caller service does
# (POST {"procedure", "kwargs"}: {"args", "kwargs"} or {"error", ...}).

import http.client
import importlib
import json
import os
import socket
import sys
import threading
import traceback
from urllib.parse import unquote_to_bytes

LISTEN_FD = 3
READY_FD = 4
FATAL_EXIT = 2


class StartError(Exception):
    """The path cannot be served: the message says why, in Crossbar's
    words where it has them; key is the config key at fault."""

    def __init__(self, message, key=""):
        Exception.__init__(self, message)
        self.key = key


def exception_line(e):
    """The last line of an exception's report: "Type: message"."""
    return "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()[-1]


told = []


def tell_node(obj):
    """Writes the one line to the node and closes the pipe; False if it
    was written already."""
    if told:
        return False
    told.append(obj)
    try:
        os.write(READY_FD, (json.dumps(obj) + "\n").encode("utf-8"))
    finally:
        os.close(READY_FD)
    return True


def set_path(s):
    """sys.path[0] is the directory the node was started from, as a
    Crossbar worker's; options.pythonpath comes after it (PYTHONPATH)."""
    if sys.path and sys.path[0] in ("", "-", "."):
        sys.path[0] = s["startdir"]
    else:
        sys.path.insert(0, s["startdir"])


def split_path(raw, prefix):
    """Splits the request target's path (escaped) into the mount path's
    segments and the rest: "/app/x/y" under "/app" is ("/app", "/x/y")."""
    i = 0
    for _ in range(prefix.count("/")):
        j = raw.find("/", i + 1)
        if j < 0:
            return raw, ""
        i = j
    return raw[:i], raw[i:]


def wsgi_str(escaped):
    """An escaped path as WSGI has it: decoded, as latin-1 (PEP 3333)."""
    return unquote_to_bytes(escaped).decode("latin-1")


def forwarded(headers):
    """What the proxy said about the client: host, port, scheme, address."""
    host = headers.get("X-Forwarded-Host") or headers.get("Host") or "localhost"
    proto = headers.get("X-Forwarded-Proto") or "http"
    port = headers.get("X-Forwarded-Port") or ("443" if proto == "https" else "80")
    name = host
    if name.startswith("["):
        name = name[1:name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.split(":", 1)[0]
    return host, name, port, proto, headers.get("X-Real-Ip") or ""


# --- wsgi -------------------------------------------------------------------

def load_wsgi(s):
    """Imports the module and takes the object, or says why not, in
    Crossbar's words."""
    mod_name, obj_name = s["module"], s["object"]
    try:
        mod = importlib.import_module(mod_name)
    except Exception as e:
        raise StartError('WSGI app module "%s" import failed: %s - Python search path was %s'
                         % (mod_name, exception_line(e), sys.path), "module")
    if obj_name not in mod.__dict__:
        raise StartError('WSGI app object "%s" not in module "%s"' % (obj_name, mod_name), "object")
    app = getattr(mod, obj_name)
    if not callable(app):
        raise StartError('WSGI app object "%s" in module "%s" is not callable (%s)'
                         % (obj_name, mod_name, type(app).__name__), "object")
    return app


class Body(object):
    """wsgi.input: the request body, of a known length or chunked."""

    def __init__(self, rfile, length, chunked):
        self.rfile = rfile
        self.left = length  # bytes left of a known length, or of the current chunk
        self.chunked = chunked
        self.done = not chunked and length == 0
        self.buf = b""

    def _fill(self, want):
        """Reads up to want more bytes of the body into buf; False at its end."""
        if self.done:
            return False
        if self.chunked and self.left == 0:
            line = self.rfile.readline(1026)
            size = int(line.split(b";", 1)[0].strip() or b"x", 16)
            if size == 0:
                while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                self.done = True
                return False
            self.left = size
        data = self.rfile.read(min(want, self.left))
        if not data:
            raise IOError("request body ended early")
        self.left -= len(data)
        if self.chunked and self.left == 0:
            self.rfile.readline(3)  # the chunk's CRLF
        elif not self.chunked and self.left == 0:
            self.done = True
        self.buf += data
        return True

    def read(self, size=-1):
        if size is None or size < 0:
            while self._fill(65536):
                pass
            out, self.buf = self.buf, b""
            return out
        while len(self.buf) < size and self._fill(size - len(self.buf)):
            pass
        out, self.buf = self.buf[:size], self.buf[size:]
        return out

    def readline(self, size=-1):
        if size is None:
            size = -1
        while b"\n" not in self.buf and (size < 0 or len(self.buf) < size) and self._fill(8192):
            pass
        end = self.buf.find(b"\n") + 1 or len(self.buf)
        if size >= 0:
            end = min(end, size)
        out, self.buf = self.buf[:end], self.buf[end:]
        return out

    def readlines(self, hint=-1):
        return list(iter(self.readline, b""))

    def __iter__(self):
        return iter(self.readline, b"")

    def finished(self):
        return self.done and not self.buf


HOP_BY_HOP = frozenset(("connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                        "te", "trailers", "transfer-encoding", "upgrade"))


def wsgi_handler(app, s, slots):
    """The request handler class of the WSGI server."""
    from http.server import BaseHTTPRequestHandler

    prefix = s["prefix"]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            pass  # the node's web transport has the access log

        def handle_one_request(self):
            self.raw_requestline = self.rfile.readline(65537)
            if len(self.raw_requestline) > 65536:
                self.send_error(414)
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():
                return
            self.serve()

        def environ(self, body):
            target, _, query = self.path.partition("?")
            script, rest = split_path(target, prefix)
            host, name, port, proto, client = forwarded(self.headers)
            env = {
                "REQUEST_METHOD": self.command,
                "SCRIPT_NAME": wsgi_str(script),
                "PATH_INFO": wsgi_str(rest),
                "QUERY_STRING": query,
                "SERVER_NAME": name,
                "SERVER_PORT": port,
                "SERVER_PROTOCOL": self.request_version,
                "REMOTE_ADDR": client,
                "wsgi.version": (1, 0),
                "wsgi.url_scheme": proto,
                "wsgi.input": body,
                "wsgi.input_terminated": True,
                "wsgi.errors": sys.stderr,
                "wsgi.multithread": True,
                "wsgi.multiprocess": False,
                "wsgi.run_once": False,
            }
            for k, v in self.headers.items():
                if "_" in k:
                    continue  # "X_Forwarded_For" must not pass for X-Forwarded-For
                key = k.upper().replace("-", "_")
                if key == "CONTENT_TYPE" or key == "CONTENT_LENGTH":
                    env[key] = v
                    continue
                key = "HTTP_" + key
                env[key] = env[key] + (";" if key == "HTTP_COOKIE" else ",") + v if key in env else v
            env["HTTP_HOST"] = host
            return env

        def body(self):
            chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
            try:
                length = 0 if chunked else int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if length < 0:
                return None
            return Body(self.rfile, length, chunked)

        def serve(self):
            body = self.body()
            if body is None:
                self.send_error(400, "bad Content-Length")
                return
            out = Response(self)
            with slots:
                try:
                    result = app(self.environ(body), out.start_response)
                    if isinstance(result, (list, tuple)) and len(result) == 1:
                        out.length = len(result[0])  # as wsgiref: no chunks for one piece
                    try:
                        for data in result:
                            out.write(data)
                    finally:
                        if hasattr(result, "close"):
                            result.close()
                    out.finish()
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client went away: the proxy closed its connection
                except Exception:
                    traceback.print_exc()
                    out.fail()
            if not body.finished():
                self.close_connection = True  # the rest of the body is not read

    return Handler


class Response(object):
    """One WSGI response: start_response, then the body, sent chunked
    unless the application gave its Content-Length."""

    def __init__(self, handler):
        self.h = handler
        self.status = None
        self.headers = None
        self.sent = False
        self.chunked = False
        self.left = None  # bytes still due of a Content-Length
        self.length = None  # the body's length when known without the header

    def start_response(self, status, headers, exc_info=None):
        if exc_info is not None:
            try:
                if self.sent:
                    raise exc_info[1].with_traceback(exc_info[2])
            finally:
                exc_info = None
        elif self.status is not None:
            raise AssertionError("start_response called twice without exc_info")
        self.status, self.headers = status, headers
        return self.write

    def send_head(self):
        if self.status is None:
            raise AssertionError("the application wrote before start_response")
        code = int(self.status.split(" ", 1)[0])
        lines = ["HTTP/1.1 %s" % self.status]
        length = None
        for k, v in self.headers:
            lk = k.lower()
            if lk in HOP_BY_HOP:
                continue
            if lk == "content-length":
                length = int(v)
            lines.append("%s: %s" % (k, v))
        if length is None and self.length is not None and code >= 200 and code not in (204, 304):
            length = self.length
            lines.append("Content-Length: %d" % length)
        bodiless = self.h.command == "HEAD" or code in (204, 304) or code < 200
        if length is not None:
            self.left = 0 if bodiless else length
        elif not bodiless:
            lines.append("Transfer-Encoding: chunked")
            self.chunked = True
        if self.h.close_connection:
            lines.append("Connection: close")
        self.h.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        self.sent = True

    def write(self, data):
        if not self.sent:
            if not data:
                return
            self.send_head()
        if not data or self.h.command == "HEAD":
            return
        if self.chunked:
            self.h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            return
        if self.left is not None:
            if len(data) > self.left:
                data = data[:self.left]
                self.h.close_connection = True  # the application said less than it sent
            self.left -= len(data)
        self.h.wfile.write(data)

    def finish(self):
        if not self.sent:
            self.send_head()
        if self.chunked:
            self.h.wfile.write(b"0\r\n\r\n")
        elif self.left:
            self.h.close_connection = True  # short body: the proxy sees it end early

    def fail(self):
        """The application raised: 500 if nothing was sent, else the
        connection is cut, so that the answer ends incomplete."""
        self.h.close_connection = True
        if self.sent:
            return
        body = b'{"error":"internal server error","reason":"the WSGI application raised an exception"}'
        self.h.wfile.write(b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
                           b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
        self.sent = True


def serve_wsgi(s, app=None):
    import socketserver

    if app is None:
        app = load_wsgi(s)
    slots = threading.BoundedSemaphore(s["maxthreads"])

    class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
        daemon_threads = True
        block_on_close = False

        def handle_error(self, request, client_address):
            traceback.print_exc()

    server = Server("", wsgi_handler(app, s, slots), bind_and_activate=False)
    server.socket.close()
    server.socket = socket.socket(fileno=LISTEN_FD)
    server.socket.set_inheritable(False)
    tell_node({"ready": True})
    server.serve_forever()


# --- wap --------------------------------------------------------------------

def wap_templates_dir(s):
    """The templates' directory: the one configured (absolute), or the
    package's resource, as Crossbar resolves it."""
    if s.get("templates"):
        d = s["templates"]
        if not os.path.isdir(d):
            raise StartError('templates directory "%s" does not exist' % d, "templates")
        return d
    pkg, res = s["templates_package"], s["templates_resource"]
    try:
        mod = importlib.import_module(pkg)
    except Exception as e:
        raise StartError("Could not import resource %s from package %s: %s" % (res, pkg, exception_line(e)),
                         "templates.package")
    base = os.path.dirname(mod.__file__) if getattr(mod, "__file__", None) else list(mod.__path__)[0]
    d = os.path.abspath(os.path.join(base, res))
    if not os.path.isdir(d):
        raise StartError('templates directory "%s" (resource %s of package %s) does not exist' % (d, res, pkg),
                         "templates.resource")
    return d


def load_wap(s):
    """The WAMP Application Page application: its routes bound, each with
    its template loaded, or why not."""
    try:
        from jinja2 import Environment, FileSystemLoader, TemplateNotFound
        from jinja2.sandbox import SandboxedEnvironment
        from werkzeug.routing import Map, Rule
    except Exception as e:
        raise StartError("cannot import Jinja2 and werkzeug: %s (install them for this interpreter, e.g. apt install "
                         "python3-jinja2 python3-werkzeug, or set the worker's options.python)" % exception_line(e))
    tdir = wap_templates_dir(s)
    env = (SandboxedEnvironment if s.get("sandbox") else Environment)(loader=FileSystemLoader(tdir), autoescape=True)
    url_map = Map(strict_slashes=False, merge_slashes=False)
    for i, r in enumerate(s.get("routes") or []):
        key = "routes[%d]" % i
        try:
            template = env.get_template(r["render"])
        except TemplateNotFound:
            raise StartError('template "%s" not found in %s' % (r["render"], tdir), key + ".render")
        except Exception as e:
            raise StartError('template "%s" does not load: %s' % (r["render"], exception_line(e)), key + ".render")
        path = r["path"] if r["path"].startswith("/") else "/" + r["path"]
        try:
            url_map.add(Rule(path, methods=[r["method"]], endpoint=(r["call"], template)))
        except Exception as e:
            raise StartError('route "%s": %s' % (r["path"], exception_line(e)), key + ".path")
    return WAP(url_map.bind("localhost"), Caller(call_socket_path()))


def call_socket_path():
    """The node's call socket: "call.sock" beside the listening one."""
    ln = socket.socket(fileno=os.dup(LISTEN_FD))
    try:
        return os.path.join(os.path.dirname(ln.getsockname()), "call.sock")
    finally:
        ln.close()


class Caller(object):
    """The node's end of the WAMP calls: HTTP on its Unix socket."""

    def __init__(self, path):
        self.path = path

    def call(self, procedure, kwargs):
        """The call's result as an Autobahn session's call gives it: the
        one positional result, the keyword results when there are no
        positional ones (a CallResult in Crossbar), a CallResult for more,
        None for none. A WAMP error raises WAMPError."""
        conn = UnixHTTPConnection(self.path)
        try:
            body = json.dumps({"procedure": procedure, "kwargs": kwargs}).encode("utf-8")
            conn.request("POST", "/", body, {"Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException) as e:
            raise WAMPError("junction.error.unavailable", "the node did not answer the call: %s" % exception_line(e))
        finally:
            conn.close()
        return call_result(resp.status, data)


def call_result(status, data):
    """The result of the node's answer (status, body), as Caller.call
    says, or the WAMPError it reports."""
    try:
        out = json.loads(data.decode("utf-8"))
    except ValueError:
        out = None
    if not isinstance(out, dict):
        raise WAMPError("junction.error.internal", "the node answered %d %r" % (status, data[:200]))
    if "error" in out:
        raise WAMPError(str(out["error"]))
    args, kwargs = out.get("args") or [], out.get("kwargs") or {}
    if kwargs and not args:
        return kwargs
    if kwargs or len(args) > 1:
        return CallResult(args, kwargs)
    return args[0] if args else None


class UnixHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to a Unix socket."""

    def __init__(self, path):
        http.client.HTTPConnection.__init__(self, "localhost")
        self.unix_path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self.unix_path)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


class WAMPError(Exception):
    """A call's error: its URI."""

    def __init__(self, uri, detail=""):
        Exception.__init__(self, uri)
        self.uri = uri
        self.detail = detail


class CallResult(object):
    """A result of several values, as Autobahn's: no template context."""

    def __init__(self, args, kwargs):
        self.results = args
        self.kwresults = kwargs

    def __repr__(self):
        return "CallResult(results=%r, kwresults=%r)" % (self.results, self.kwresults)


def error_page(message):
    """Crossbar's error page, with message escaped."""
    import html

    return ("""
            <html>
                <title>API Error</title>
                <body>
                    <h3 style="color: #f00">Crossbar WAMP Application Page Error</h3>
                    <pre>%s</pre>
                </body>
            </html>
        """ % html.escape(message)).encode("utf-8")


class WAP(object):
    """The WSGI application of a wap path: match, call, render."""

    def __init__(self, adapter, caller):
        self.adapter = adapter
        self.caller = caller

    def __call__(self, environ, start_response):
        from werkzeug.exceptions import MethodNotAllowed, NotFound

        full = environ["SCRIPT_NAME"] + environ["PATH_INFO"]
        path = environ["PATH_INFO"] or "/"
        try:
            (procedure, template), kwargs = self.adapter.match(path, method=environ["REQUEST_METHOD"])
        except NotFound:
            return self.page(start_response, "404 Not Found",
                             'Path "%s" not found [werkzeug.routing.MapAdapter.match]' % full)
        except MethodNotAllowed as e:
            return self.page(start_response, "405 Method Not Allowed",
                             'Method not allowed on path "%s" [werkzeug.routing.MapAdapter.match]' % full,
                             [("Allow", ", ".join(sorted(e.valid_methods or [])))])
        result = {}
        if procedure:
            try:
                result = self.caller.call(procedure, kwargs)
            except WAMPError as e:
                if e.detail:
                    sys.stderr.write("wap: call %s: %s: %s\n" % (procedure, e.uri, e.detail))
                return self.page(start_response, "500 Internal Server Error", e.uri)
        try:
            html = template.render(result).encode("utf-8")
        except Exception as e:
            msg = 'render error for WAMP result of type "%s": %s' % (type(result), e)
            return self.page(start_response, "500 Internal Server Error", msg)
        start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(html)))])
        return [html]

    @staticmethod
    def page(start_response, status, message, headers=()):
        body = error_page(message)
        start_response(status, [("Content-Type", "text/html; charset=utf-8"),
                                ("Content-Length", str(len(body)))] + list(headers))
        return [body]


# --- resource ---------------------------------------------------------------

def serve_resource(s):
    try:
        from twisted.internet import reactor
        from twisted.internet.address import IPv4Address, IPv6Address
        from twisted.web import resource, server
    except Exception as e:
        raise StartError("cannot import Twisted: %s (install it for this interpreter, e.g. apt install "
                         "python3-twisted, or set the worker's options.python)" % exception_line(e))
    classname = s["classname"]
    try:
        module_name, class_name = classname.rsplit(".", 1)
        make = getattr(importlib.import_module(module_name), class_name)
        res = make(s["extra"])
    except Exception as e:
        raise StartError("Failed to import class '%s' - %s" % (classname, exception_line(e)), "classname")

    root = res
    for seg in reversed([p for p in s["prefix"].split("/") if p]):
        parent = resource.Resource()
        parent.putChild(seg.encode("utf-8"), root)
        root = parent

    class Request(server.Request):
        """A request as the client made it: its host, scheme and address,
        from the proxy's headers."""

        def process(self):
            h = self.requestHeaders
            get = lambda k: (h.getRawHeaders(k) or [b""])[0].decode("latin-1")
            fields = {"X-Forwarded-Host": get(b"x-forwarded-host"), "X-Forwarded-Proto": get(b"x-forwarded-proto"),
                      "X-Forwarded-Port": get(b"x-forwarded-port"), "X-Real-Ip": get(b"x-real-ip"),
                      "Host": get(b"host")}
            host, name, port, proto, client = forwarded(fields)
            h.setRawHeaders(b"host", [host.encode("latin-1")])
            self.junction_secure = proto == "https"
            self.client = (IPv6Address if ":" in client else IPv4Address)("TCP", client, 0)
            try:
                self.host = IPv4Address("TCP", name, int(port))
            except ValueError:
                self.host = IPv4Address("TCP", name, 0)
            server.Request.process(self)

        def isSecure(self):
            return self.junction_secure

    site = server.Site(root)
    site.requestFactory = Request
    site.displayTracebacks = False
    os.set_blocking(LISTEN_FD, False)  # as adoptStreamPort requires
    reactor.adoptStreamPort(LISTEN_FD, socket.AF_UNIX, site)
    os.close(LISTEN_FD)  # adopted: the reactor has its own descriptor
    tell_node({"ready": True})
    reactor.run()


def main():
    s = json.loads(sys.argv[1])
    set_path(s)
    try:
        if s["kind"] == "wsgi":
            serve_wsgi(s)
        elif s["kind"] == "wap":
            serve_wsgi(s, load_wap(s))
        else:
            serve_resource(s)
    except StartError as e:
        tell_node({"error": str(e), "key": e.key, "traceback": traceback.format_exc()})
        os._exit(FATAL_EXIT)
    except BaseException as e:
        if not tell_node({"error": exception_line(e), "traceback": traceback.format_exc()}):
            traceback.print_exc()  # while serving: the node logs it and restarts the process
        os._exit(FATAL_EXIT)


if __name__ == "__main__":
    main()
