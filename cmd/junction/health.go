package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

const healthSynopsis = "[--timeout DURATION] URL"

// healthBodyLimit bounds what health prints of an answer's body.
const healthBodyLimit = 4096

// runHealth asks a health or readiness URL (a "health" or "ready" path
// service): exit 0 on a 2xx answer, 1 on any other answer or none, 2 on a
// usage error. For container HEALTHCHECKs, where there is no curl.
func runHealth(e *env, args []string) int {
	fs := flagSet(e, "health", healthSynopsis)
	timeout := fs.Duration("timeout", 5*time.Second, "give up after this long")
	if code, ok := parseStatus(fs.Parse(args)); !ok {
		return code
	}
	target, ok := healthURL(fs)
	if !ok {
		return exitUsage
	}
	client := &http.Client{Timeout: *timeout}
	resp, err := client.Get(target)
	if err != nil {
		fmt.Fprintf(e.stderr, "junction health: %v\n", err)
		return exitError
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, healthBodyLimit))
	out, code := e.stdout, exitOK
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		out, code = e.stderr, exitError
	}
	fmt.Fprintf(out, "%s: %s\n%s", target, resp.Status, body)
	return code
}

// healthURL is the one argument, an absolute http or https URL.
func healthURL(fs *flag.FlagSet) (string, bool) {
	if fs.NArg() != 1 {
		fmt.Fprintf(fs.Output(), "junction health: want one URL, got %d arguments\n", fs.NArg())
		fs.Usage()
		return "", false
	}
	u, err := url.Parse(fs.Arg(0))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fmt.Fprintf(fs.Output(), "junction health: %q is not an http:// or https:// URL\n", fs.Arg(0))
		return "", false
	}
	return u.String(), true
}
