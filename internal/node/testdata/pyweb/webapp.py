# A plain WSGI application (no framework) for the node's tests of the
# "wsgi" path type: it answers what it was asked, streams, and counts the
# requests it runs at once.
import json
import threading

lock = threading.Lock()
active = 0

ENVIRON_KEYS = ("REQUEST_METHOD", "SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "CONTENT_TYPE",
                "CONTENT_LENGTH", "HTTP_HOST", "HTTP_X_TEST", "HTTP_COOKIE", "SERVER_NAME", "SERVER_PORT",
                "REMOTE_ADDR", "wsgi.url_scheme")


def app(environ, start_response):
    path = environ["PATH_INFO"]
    if path.endswith("/stream"):
        return stream(start_response)
    if path.endswith("/hold"):
        return hold(environ, start_response)
    if path.endswith("/forever"):
        return forever(start_response)
    if path.endswith("/one"):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"one piece"]
    if path.endswith("/raise"):
        raise RuntimeError("the application failed")
    body = environ["wsgi.input"].read()
    seen = {k: environ.get(k) for k in ENVIRON_KEYS}
    seen["body"] = body.decode("utf-8")
    data = json.dumps(seen).encode("utf-8")
    start_response("200 OK", [("Content-Type", "application/json"), ("X-App", "webapp"),
                              ("Content-Length", str(len(data)))])
    return [data]


def stream(start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    for i in range(3):
        yield b"part %d\n" % i


def forever(start_response):
    """Streams until the client goes away."""
    start_response("200 OK", [("Content-Type", "application/octet-stream")])
    while True:
        yield b"x" * 65536


def hold(environ, start_response):
    """Says how many requests run at once with this one, then holds the
    request until its body ends (the client decides when)."""
    global active
    with lock:
        active += 1
        now = active
    try:
        start_response("200 OK", [("Content-Type", "text/plain")])
        yield b"active %d\n" % now
        environ["wsgi.input"].read()
        yield b"done\n"
    finally:
        with lock:
            active -= 1


not_callable = 42
