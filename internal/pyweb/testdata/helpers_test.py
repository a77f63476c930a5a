# Tests of pyweb.py's parts that need no socket: the request body reader
# (a length, or chunks with extensions and trailers), the split of the
# path at the mount point, what the proxy's headers say, and a wap call's
# result and error page. Run by
# TestPythonHelpers as: python3 helpers_test.py PATH_TO_PYWEB_PY
import importlib.util
import io
import sys

spec = importlib.util.spec_from_file_location("pyweb", sys.argv[1])
pyweb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pyweb)


def body(raw, length, chunked):
    f = io.BufferedReader(io.BytesIO(raw))
    return f, pyweb.Body(f, length, chunked)


def test_chunked():
    f, b = body(b"5\r\nab\ncd\r\n3;ext=1\r\nefg\r\n0\r\nX-T: 1\r\n\r\nNEXT", 0, True)
    assert b.readline() == b"ab\n"
    assert b.readline(None) == b"cdefg"
    assert b.read() == b""
    assert b.finished()
    assert f.read() == b"NEXT", "the next request stays unread"


def test_chunked_sizes():
    f, b = body(b"a\r\n0123456789\r\n0\r\n\r\n", 0, True)
    assert b.read(4) == b"0123"
    assert b.read(100) == b"456789"
    assert b.read(1) == b""


def test_length():
    f, b = body(b"hello\nworld!rest", 12, False)
    assert list(b) == [b"hello\n", b"world!"]
    assert b.finished() and f.read() == b"rest"


def test_empty():
    f, b = body(b"GET / HTTP/1.1\r\n", 0, False)
    assert b.read() == b"" and b.finished()
    assert f.read(3) == b"GET"


def test_short_body():
    f, b = body(b"abc", 10, False)
    try:
        b.read()
    except IOError:
        return
    raise AssertionError("a body that ends early reads without an error")


def test_bad_chunk_size():
    f, b = body(b"zz\r\n", 0, True)
    try:
        b.read()
    except ValueError:
        return
    raise AssertionError("a chunk size that is not hex reads without an error")


def test_split_path():
    assert pyweb.split_path("/a/b/c", "/a/b") == ("/a/b", "/c")
    assert pyweb.split_path("/a", "/a") == ("/a", "")
    assert pyweb.split_path("/a/", "/a") == ("/a", "/")
    assert pyweb.split_path("/x/y", "") == ("", "/x/y")
    assert pyweb.split_path("/", "") == ("", "/")
    assert pyweb.wsgi_str("/a%20b/%C3%A9") == "/a b/\u00c3\u00a9"


def test_forwarded():
    assert pyweb.forwarded({"X-Forwarded-Host": "example.com:8443", "X-Forwarded-Port": "8443",
                            "X-Forwarded-Proto": "https", "X-Real-Ip": "10.0.0.1"}) == \
        ("example.com:8443", "example.com", "8443", "https", "10.0.0.1")
    assert pyweb.forwarded({"X-Forwarded-Host": "[::1]:8080"})[1] == "::1"
    assert pyweb.forwarded({"Host": "localhost"}) == ("localhost", "localhost", "80", "http", "")


def raises_uri(status, data):
    try:
        pyweb.call_result(status, data)
    except pyweb.WAMPError as e:
        return e.uri
    raise AssertionError("no WAMPError from %r" % data)


def test_call_result():
    assert pyweb.call_result(200, b'{"args": [{"a": 1}], "kwargs": {}}') == {"a": 1}
    assert pyweb.call_result(200, b'{"args": ["s"]}') == "s"
    assert pyweb.call_result(200, b'{"args": [], "kwargs": {"k": 2}}') == {"k": 2}
    assert pyweb.call_result(200, b'{"args": [], "kwargs": {}}') is None
    several = pyweb.call_result(200, b'{"args": [1, 2], "kwargs": {}}')
    assert isinstance(several, pyweb.CallResult) and several.results == [1, 2]
    both = pyweb.call_result(200, b'{"args": [1], "kwargs": {"k": 2}}')
    assert isinstance(both, pyweb.CallResult) and both.kwresults == {"k": 2}
    assert raises_uri(404, b'{"error": "wamp.error.no_such_procedure", "args": [], "kwargs": {}}') == \
        "wamp.error.no_such_procedure"
    assert raises_uri(502, b"<html>bad gateway</html>") == "junction.error.internal"
    assert raises_uri(200, b"[1]") == "junction.error.internal"


def test_error_page():
    page = pyweb.error_page('Path "/<x>" not found').decode("utf-8")
    assert "<pre>Path &quot;/&lt;x&gt;&quot; not found</pre>" in page, page
    assert "Crossbar WAMP Application Page Error" in page


if __name__ == "__main__":
    names = [n for n in sorted(globals()) if n.startswith("test_")]
    for n in names:
        globals()[n]()
    print("%d passed" % len(names))
