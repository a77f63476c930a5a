package h1

import (
	"strings"
	"testing"
)

func TestTrimBlanks(t *testing.T) {
	for _, s := range []string{"", " ", "\t \t", "a", " a", "a\t", " \ta b\t ", "\ta\r\n", "\xa0a\xa0"} {
		if got, want := trimBlanks(s), strings.Trim(s, " \t"); got != want {
			t.Errorf("trimBlanks(%q) = %q, want %q", s, got, want)
		}
	}
}
