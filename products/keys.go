package products

import (
	"slices"
	"strings"
)

// A product keys its limits by an expression of the request (nginx: a complex
// value of variables; HAProxy: a sample fetch); a request log has a few fields
// (a Common/Combined Log: the client's address, the authenticated user, the
// method and the path; JSON Lines and CSV: fields named the same). Each
// product's package says which fields stand for each part of an expression,
// and how they differ (nginx's variables, HAProxy's fetches), as KeyParts, and
// JoinKey makes the expression's Key of them.

// KeyPart is what one variable or fetch maps to.
type KeyPart struct {
	Trace  string // "ip", "user", "path", "method"; "" with shared or unmapped
	Shared bool   // the same for every request (of a server)
	Note   string // how the log's field differs, or why none stands for it
	Mapped bool
}

// JoinKey makes a Key of an expression's parts: the fields of the mapped parts
// joined by "+" (a shared part adds nothing), shared when every part is; the
// notes joined. One unmapped part leaves the key unmapped.
func JoinKey(expr string, parts []KeyPart) Key {
	k := Key{Expr: expr, Mapped: true}
	var fields, notes []string
	for _, p := range parts {
		if p.Note != "" && !slices.Contains(notes, p.Note) {
			notes = append(notes, p.Note)
		}
		if !p.Mapped {
			k.Mapped = false
			continue
		}
		if p.Trace != "" && !slices.Contains(fields, p.Trace) {
			fields = append(fields, p.Trace)
		}
	}
	k.Note = strings.Join(notes, "; ")
	switch {
	case !k.Mapped:
	case len(fields) == 0:
		k.Shared = true
	default:
		k.Trace = strings.Join(fields, "+")
	}
	return k
}
