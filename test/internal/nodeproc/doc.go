// Package nodeproc runs the junction binary as a child process for the
// tests that prove it as shipped (test/interop, test/e2e).
//
// A test package's TestMain calls [Main] with a [Harness]: before the
// tests run, it installs or checks the client dependencies with
// [EnsureDeps] (scripts/install-test-deps.sh) and builds the binary once
// with [Build], with -race when the test binary has it ([RaceEnabled]), so
// that a race-checked test run also race-checks the router. When either
// fails, each test that needs it fails with the reason
// ([Harness.RequireBinary], [Harness.RequireDeps]); nothing is skipped.
//
// Each test writes its config with [WriteConfig] and runs it with
// [Harness.Start] (or [Start]): junction start --config FILE --logformat
// json, which must log "node started" within [StartBound]. A test of a
// node directory laid out as Crossbar's (config in .crossbar, application
// code beside it) runs it with [Harness.StartIn] (or [StartIn]): junction
// start --logformat json in that directory, as a user runs crossbar start;
// [Harness.TryStartIn] (or [TryStartIn]) returns an [ExitedError] instead
// of failing the test when the node exits before it starts, so that a
// test may start it again (with another port).
// [Options.Env] adds to the node's environment. The addresses
// come from the JSON log's "listening" lines ([Node.Addr], named by
// [Transport]); [Node.WaitLog] waits for other lines; [Node.PID] is its
// process ID, for what the system says of it (/proc/PID).
//
// When the test ends, or earlier at [Node.Stop], the node gets SIGTERM by
// PID and must exit with status 0 within [StopBound], with no line in its
// log other than JSON at level INFO or DEBUG, or a WARN whose message
// [Options.AllowedWarnings] lists: any other warning, an error, a panic or
// a race report fails the test. When the test has already failed the node
// is killed instead and its log added to the test's output. On Linux a
// node also gets SIGKILL when the test process dies ([DieWithParent]).
//
// The package imports only the standard library; it belongs to the tests
// and is never linked into the binary.
package nodeproc
