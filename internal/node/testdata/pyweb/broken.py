# A module that does not import: the start fails with its error.
import no_such_module_here  # noqa: F401
