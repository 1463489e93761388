package scenarios

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"ratelab/internal/suggest"
)

// decode reads a scenario file strictly: an unknown key, a value of the wrong type,
// a word that is not one of a setting's (see enums.go) or a TOML syntax error is
// an error at its line and column, as go-toml places it, with the decoder's own
// excerpt of the file: the nearest known key suggested for a misspelt one, and
// what belongs where a value of the wrong type was written, in words rather than
// Go types. pos is where data writes its values (positions), which names the
// kind of value written.
func decode(name string, data []byte, pos *positions) (*File, error) {
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
		key := []string(de.Key())
		// DecodeError.Error is "toml: " and the message
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		excerpt := de.String()
		if v, ok := pos.valueAt(row, col); ok {
			key = v.key // go-toml names the outer key of a value in an inline table
			if wrong, ok := wrongType(v); ok {
				excerpt = strings.ReplaceAll(excerpt, msg, wrong) // the excerpt ends with the message too
				msg = wrong
			}
		}
		where := ""
		switch {
		case len(key) == 0:
		case strings.HasPrefix(msg, key[len(key)-1]+" "): // the message names its key: "backend must be one of…"
			where = strings.Join(key[:len(key)-1], ".") + ": "
		default:
			where = strings.Join(key, ".") + ": "
		}
		return nil, fmt.Errorf("%s:%d:%d: %s%s\n%s", name, row, col, where, msg, indent(excerpt))
	}
	return nil, fmt.Errorf("%s: %w", name, err)
}

// wrongType says, when v is of a kind the schema's field for its key cannot hold,
// what was written and what belongs there: "cannot decode TOML string where a
// whole number belongs". Otherwise (a word a setting does not take, a number out
// of range) the decoder's message stands.
func wrongType(v value) (string, bool) {
	kind := v.kind
	t, ok := fieldType(v.key)
	if !ok {
		return "", false
	}
	if t.Kind() == reflect.Slice && v.element { // an element of an array
		t = t.Elem()
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
	}
	if holds(t, kind) {
		return "", false
	}
	return fmt.Sprintf("cannot decode TOML %s where %s belongs", kindName(kind), belongs(t)), true
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// holds says a field of type t takes a value of kind as go-toml decodes it: a
// type that reads text (Duration, a setting's word) is handed strings, numbers
// and booleans as text.
func holds(t reflect.Type, kind unstable.Kind) bool {
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return kind == unstable.String || kind == unstable.Integer || kind == unstable.Float || kind == unstable.Bool
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.String:
		return kind == unstable.String
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return kind == unstable.Integer
	case reflect.Float32, reflect.Float64:
		return kind == unstable.Integer || kind == unstable.Float
	case reflect.Bool:
		return kind == unstable.Bool
	case reflect.Slice, reflect.Array:
		return kind == unstable.Array
	case reflect.Struct, reflect.Map:
		return kind == unstable.InlineTable
	}
	return false
}

// belongs says in words what a field of type t holds.
func belongs(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[Spread]():
		return `a duration string like "2s" (closed-loop) or "uniform" (trace)`
	case reflect.TypeFor[Duration]():
		return `a duration string like "250ms"`
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "a string"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "a table"
}

// kindName names a kind of TOML value as go-toml's messages do.
func kindName(k unstable.Kind) string {
	switch k {
	case unstable.String:
		return "string"
	case unstable.Integer:
		return "integer"
	case unstable.Float:
		return "float"
	case unstable.Bool:
		return "boolean"
	case unstable.Array:
		return "array"
	case unstable.InlineTable:
		return "inline table"
	case unstable.LocalDate:
		return "local date"
	case unstable.LocalTime:
		return "local time"
	case unstable.LocalDateTime:
		return "local date-time"
	case unstable.DateTime:
		return "date-time"
	}
	return "value"
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

// fieldType is the type the schema holds at a key path (pointers, and the
// elements of arrays of tables on the way, looked through).
func fieldType(path []string) (reflect.Type, bool) {
	t := reflect.TypeFor[File]()
	for _, step := range path {
		for t.Kind() == reflect.Pointer || (t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.String) {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil, false
		}
		f, ok := fieldByKey(t, step)
		if !ok {
			return nil, false
		}
		t = f.Type
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, true
}

// knownKeys lists the keys the schema has at a table path, sorted as declared.
func knownKeys(path []string) []string {
	t, ok := fieldType(path)
	if !ok {
		return nil
	}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return keysOf(t)
}

func keysOf(t reflect.Type) []string {
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(textUnmarshaler) {
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
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
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
