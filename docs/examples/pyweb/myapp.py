# A WSGI application (a plain function: Flask's app or Django's
# application object serve the same way), at the root of the web
# transport: every path that "hello" and "ws" do not take.


def app(environ, start_response):
    if environ["PATH_INFO"] != "/":
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found\n"]
    name = environ["QUERY_STRING"].partition("name=")[2] or "world"
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [("Hi %s, from WSGI at %r\n" % (name, environ["SCRIPT_NAME"])).encode("utf-8")]
