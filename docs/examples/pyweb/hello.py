# A Twisted Web resource at /hello, made as Hello(extra).
from twisted.web.resource import Resource


class Hello(Resource):
    isLeaf = True

    def __init__(self, extra):
        Resource.__init__(self)
        self.greeting = extra["greeting"]

    def render_GET(self, request):
        request.setHeader(b"content-type", b"text/plain")
        rest = b"/".join(request.postpath).decode()
        return ("%s from Twisted, below /hello: %r\n" % (self.greeting, rest)).encode()
