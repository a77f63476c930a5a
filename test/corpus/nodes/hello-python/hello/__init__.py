from hello.app import AppSession  # noqa: F401
