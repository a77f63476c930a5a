"""Reads back the component's configuration: "extra" as written, and cbdir
the node's .crossbar directory."""

import os

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, expect, join, main


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1")
    extra = yield call(s, "com.example.configuration")
    cbdir = extra.pop("cbdir", None)
    equal(extra, {"foo": "bar", "baz": 23, "nested": {"list": [1, 2.5, True, None]}}, "extra")
    expect(isinstance(cbdir, str) and os.path.isabs(cbdir), "cbdir %r is not an absolute path", cbdir)
    equal(os.path.realpath(cbdir), os.path.realpath(".crossbar"), "cbdir")
    files = yield call(s, "com.example.cbdir_files")
    expect("config.json" in files, "the component sees %r in cbdir, want config.json there", files)
    yield s.leave()


main(check)
