// Package archtest holds the test that enforces the import rules between
// the packages of the module (see docs/ARCHITECTURE.md).
package archtest
