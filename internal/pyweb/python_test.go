package pyweb

import (
	"os/exec"
	"strings"
	"testing"
)

// python is the interpreter of the tests: Debian's (the python3 first on
// PATH may be another).
const python = "/usr/bin/python3"

// TestPythonHelpers runs testdata/helpers_test.py: pyweb.py's request
// body reader, path split and forwarded headers, without a socket.
func TestPythonHelpers(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), python, "testdata/helpers_test.py", "pyweb.py").CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "passed") {
		t.Errorf("%s: %v\n%s", python, err, out)
	}
}
