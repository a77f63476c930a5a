package main

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// nodeConfigs returns the node configs below the directory root, in
// lexical order: every file named config*.json, config*.yaml or
// config*.yml (config.json, config_w1.json, config-dev.yaml...) in a
// directory named .crossbar or .crossbar-* (.crossbar-node1), root itself
// included. It does not enter .git or node_modules directories, nor follow
// symbolic links to directories. A directory it cannot read is an error in
// errs, and the search goes on.
func nodeConfigs(root string) (files []string, errs []error) {
	rootName := filepath.Base(root)
	if abs, err := filepath.Abs(root); err == nil {
		rootName = filepath.Base(abs)
	}
	walk := func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			errs = append(errs, err)
		case d.IsDir() && p != root && (d.Name() == ".git" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case !d.IsDir() && isConfigName(d.Name()) && isNodeDir(dirName(p, root, rootName)):
			files = append(files, p)
		}
		return nil
	}
	_ = filepath.WalkDir(root, walk) // walk never fails: errs has the problems
	return files, errs
}

// dirName is the name of the directory holding p, found below root.
func dirName(p, root, rootName string) string {
	if dir := filepath.Dir(p); dir != filepath.Clean(root) {
		return filepath.Base(dir)
	}
	return rootName
}

// isNodeDir reports whether a directory of this name holds node configs.
func isNodeDir(name string) bool {
	return name == defaultDir || strings.HasPrefix(name, defaultDir+"-")
}

// isConfigName reports whether a file of this name is a node config.
func isConfigName(name string) bool {
	if !strings.HasPrefix(name, "config") {
		return false
	}
	switch filepath.Ext(name) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}
