package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// parseTree decodes a document into a generic tree of map[string]any, []any,
// string, json.Number (numbers stay exact), bool and nil. A syntax error is
// a *FieldError at its line (and column for JSON).
func parseTree(data []byte, format Format) (any, *FieldError) {
	if format == YAML {
		return parseYAML(data)
	}
	return parseJSON(data)
}

func parseJSON(data []byte) (any, *FieldError) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonSyntaxError(data, err, dec.InputOffset())
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		next := end + int64(len(data[end:])-len(bytes.TrimLeft(data[end:], " \t\r\n")))
		return nil, syntaxAt(data, int(next), "invalid JSON: data after the top-level value")
	}
	return v, nil
}

func parseYAML(data []byte) (v any, _ *FieldError) {
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, yamlSyntaxError(data, err)
	}
	v, err := normalizeYAML(v)
	if err != nil {
		return nil, &FieldError{Msg: err.Error()}
	}
	return v, nil
}

// normalizeYAML turns what the YAML library produced into the tree JSON
// gives: string keys only, numbers as json.Number.
func normalizeYAML(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			n, err := normalizeYAML(e)
			if err != nil {
				return nil, err
			}
			v[k] = n
		}
		return v, nil
	case map[any]any:
		return normalizeYAMLMap(v)
	case []any:
		for i, e := range v {
			n, err := normalizeYAML(e)
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
		return v, nil
	}
	return normalizeYAMLScalar(v), nil
}

func normalizeYAMLMap(v map[any]any) (any, error) {
	m := make(map[string]any, len(v))
	for k, e := range v {
		ks, ok := k.(string)
		if !ok {
			ks = fmt.Sprint(k)
		}
		if _, dup := m[ks]; dup {
			return nil, fmt.Errorf("invalid YAML: duplicate key %q", ks)
		}
		n, err := normalizeYAML(e)
		if err != nil {
			return nil, err
		}
		m[ks] = n
	}
	return m, nil
}

func normalizeYAMLScalar(v any) any {
	switch v := v.(type) {
	case int:
		return json.Number(strconv.Itoa(v))
	case int64:
		return json.Number(strconv.FormatInt(v, 10))
	case uint64:
		return json.Number(strconv.FormatUint(v, 10))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return v // not a JSON number: typed decoders reject it
		}
		return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return v
}
