// Package archtest holds the test that enforces DESIGN.md's import rules.
package archtest
