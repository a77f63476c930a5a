package docs

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// docBase is the address the pages' curl commands use; tests replace it
// with the started example's.
const docBase = "http://127.0.0.1:8080"

// curlCase is a curl command exactly as a page shows it, and the answer
// the page shows under it ("# ..." without the "# ").
type curlCase struct {
	cmd    string
	status int
	want   string // "" when the page shows no exact answer
}

// run checks that page shows the command and its answer, then sends it to
// base and compares the status and body.
func (c curlCase) run(t *testing.T, page, base string) (*http.Response, string) {
	t.Helper()
	text := readPage(t, page)
	if !strings.Contains(text, c.cmd+"\n") {
		t.Errorf("%s does not show the command %s", page, c.cmd)
	}
	if c.want != "" && !strings.Contains(text, c.cmd+"\n# "+c.want+"\n") {
		t.Errorf("%s does not show the answer of %s as %s", page, c.cmd, c.want)
	}
	resp, body := send(t, curlRequest(t, c.cmd, base))
	if resp.StatusCode != c.status || c.want != "" && strings.TrimSuffix(body, "\n") != c.want {
		t.Errorf("%s\n= %d %s\nwant %d %s", c.cmd, resp.StatusCode, body, c.status, c.want)
	}
	return resp, body
}

func readPage(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// curlRequest turns a curl command of the pages into a request to base: it
// knows -s, -N and -sN (no buffering: the answer is read as it comes
// anyway), -i, --path-as-is, -H 'Name: value', -u user:password, -d
// 'body' (which means POST and, as curl does, Content-Type
// application/x-www-form-urlencoded unless a -H sets it) and -X METHOD.
// Arguments are single-quoted or plain, as the pages write them.
func curlRequest(t *testing.T, cmd, base string) *http.Request {
	t.Helper()
	args := shellWords(t, cmd)
	if len(args) == 0 || args[0] != "curl" {
		t.Fatalf("not a curl command: %s", cmd)
	}
	method, url, body, headers := "GET", "", "", http.Header{}
	var basicUser *[2]string
	hasBody := false
	for i := 1; i < len(args); i++ {
		switch a := args[i]; a {
		case "-s", "-N", "-sN", "-i", "--path-as-is":
		case "-H", "-d", "-X", "-u":
			if i++; i == len(args) {
				t.Fatalf("%s: %s needs a value", cmd, a)
			}
			switch a {
			case "-H":
				name, value, _ := strings.Cut(args[i], ":")
				headers.Add(name, strings.TrimSpace(value))
			case "-d":
				body, hasBody, method = args[i], true, "POST"
			case "-X":
				method = args[i]
			case "-u":
				user, pass, _ := strings.Cut(args[i], ":")
				basicUser = &[2]string{user, pass}
			}
		default:
			if strings.HasPrefix(a, "-") || url != "" {
				t.Fatalf("%s: unexpected %q", cmd, a)
			}
			url = strings.Replace(a, docBase, base, 1)
		}
	}
	if hasBody && headers.Get("Content-Type") == "" {
		headers.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req, err := http.NewRequestWithContext(testCtx(t), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	if !hasBody {
		req.Body, req.ContentLength = nil, 0
	}
	req.Header = headers
	if basicUser != nil {
		req.SetBasicAuth(basicUser[0], basicUser[1])
	}
	return req
}

// shellWords splits cmd as a shell does for plain and single-quoted words.
func shellWords(t *testing.T, cmd string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, r := range cmd {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			w.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case r == '"' || r == '$' || r == '\\':
			t.Fatalf("%s: only plain and single-quoted words are understood", cmd)
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("%s: unterminated quote", cmd)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// send sends req (not following redirects) and returns the response with
// its body read.
func send(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: testTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return resp, string(b)
}
