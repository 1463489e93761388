package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	toml "github.com/pelletier/go-toml/v2"

	"ratelab/internal/suggest"
)

// decode reads a scenario file strictly: an unknown key, a value of the wrong type
// or a TOML syntax error is an error at its line and column, with the nearest known
// key suggested for a misspelling, and the decoder's own excerpt of the file.
func decode(name string, data []byte) (*File, error) {
	var f File
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&f)
	if err == nil {
		return &f, nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := strict.Errors[0]
		row, col := e.Position()
		key := e.Key()
		msg := fmt.Sprintf("%s:%d:%d: unknown key %q in %s", name, row, col, key[len(key)-1], tableName(key[:len(key)-1]))
		if known := knownKeys(key[:len(key)-1]); len(known) > 0 {
			if near := suggest.Nearest(key[len(key)-1], known); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			} else {
				msg += "; known keys: " + strings.Join(known, ", ")
			}
		}
		return nil, errors.New(msg)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		where := ""
		if k := de.Key(); len(k) > 0 {
			where = strings.Join(k, ".") + ": "
		}
		return nil, fmt.Errorf("%s:%d:%d: %s%s\n%s", name, row, col, where, humanType(strings.TrimPrefix(de.Error(), "toml: ")), indent(de.String()))
	}
	return nil, fmt.Errorf("%s: %w", name, err)
}

// goType matches go-toml's wording for a value of the wrong type.
var goType = regexp.MustCompile(`into struct field \S+ of type (\S+)`)

// humanType says what a field wants in words rather than Go types.
func humanType(msg string) string {
	return goType.ReplaceAllStringFunc(msg, func(m string) string {
		t := goType.FindStringSubmatch(m)[1]
		switch {
		case strings.HasSuffix(t, "Spread"):
			return `where a duration string like "2s" (closed-loop) or "uniform" (trace) belongs`
		case strings.HasSuffix(t, "Duration"):
			return `where a duration string like "250ms" belongs`
		case strings.Contains(t, "int"):
			return "where a whole number belongs"
		case strings.Contains(t, "float"):
			return "where a number belongs"
		case strings.HasSuffix(t, "string"):
			return "where a string belongs"
		case strings.HasSuffix(t, "bool"):
			return "where true or false belongs"
		case strings.HasPrefix(t, "[]"):
			return "where an array belongs"
		}
		return "where a table belongs"
	})
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// tableName renders a key path as the table a person wrote: [scenario.policy].
func tableName(path []string) string {
	if len(path) == 0 {
		return "the top level"
	}
	return "[" + strings.Join(path, ".") + "]"
}

// knownKeys lists the keys the schema has at a table path, sorted as declared.
func knownKeys(path []string) []string {
	t := reflect.TypeOf(File{})
	for _, step := range path {
		f, ok := fieldByKey(t, step)
		if !ok {
			return nil
		}
		t = f.Type
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
	}
	return keysOf(t)
}

func keysOf(t reflect.Type) []string {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			keys = append(keys, keysOf(f.Type)...)
			continue
		}
		if k := strings.Split(f.Tag.Get("toml"), ",")[0]; k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			if g, ok := fieldByKey(f.Type, key); ok {
				return g, true
			}
		}
		if strings.Split(f.Tag.Get("toml"), ",")[0] == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
