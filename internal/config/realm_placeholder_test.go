package config

import (
	"strings"
	"testing"
)

// TestRealmPlaceholder: a realm named by a template placeholder left in
// the file ("{{ realm }}", as in the configurations of Crossbar's
// retired templates) is dropped with a warning at its name, and the rest
// of the node loads; any other name that is not a URI stays an error.
func TestRealmPlaceholder(t *testing.T) {
	tests := []struct {
		name   string
		realm  string
		realms []string // the realms loaded, when the document loads
		err    string   // the error expected otherwise
	}{
		{"placeholder", "{{ realm }}", []string{"kept"}, ""},
		{"placeholder in a URI", "com.{{realm}}.app", []string{"kept"}, ""},
		{"a space", "a b", nil, `workers[0].realms[0].name: invalid realm URI "a b"`},
		{"an unclosed placeholder", "{{ realm", nil, `workers[0].realms[0].name: invalid realm URI "{{ realm"`},
		{"a closing brace before the opening", "}} x {{", nil, `workers[0].realms[0].name: invalid realm URI "}} x {{"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := top(`{"type": "router", "realms": [{"name": "` + tt.realm + `", "roles": [{"name": "anonymous", "allow-by-default": true}]}, {"name": "kept"}]}`)
			c, warns, errs := parseTest(t, doc, JSON)
			if tt.err != "" {
				if errs == nil || errs.Error() != tt.err {
					t.Fatalf("errors %v, want %s", errs, tt.err)
				}
				return
			}
			if errs != nil {
				t.Fatalf("errors: %v", errs)
			}
			var names []string
			for _, r := range c.Workers[0].(*RouterWorker).Realms {
				names = append(names, r.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.realms, ",") {
				t.Errorf("realms %v, want %v", names, tt.realms)
			}
			if len(warns) != 1 || warns[0].Path != "workers[0].realms[0].name" || !strings.Contains(warns[0].Msg, "template placeholder") {
				t.Errorf("warnings:\n%s\nwant one at workers[0].realms[0].name", warningsText(warns))
			}
		})
	}
}
