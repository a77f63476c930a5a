# A package holding templates, for a wap path's "templates": {"package", "resource"}.
