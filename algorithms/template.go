package algorithms

import (
	"fmt"
	"strings"
	"time"
)

// KeyTemplate names the key a limit keeps its state under, from the request's key:
// "{key}" stands for the request's key, and any other text is kept as written. So
// "user:{key}" is a limit per key, and "global" (no field) is one limit that every
// request shares. The zero KeyTemplate is "{key}": the request's key as it is.
type KeyTemplate struct {
	before, after string // around {key}
	perKey        bool   // names {key}
}

// templateField is the one field a key template may name.
const templateField = "{key}"

// ParseKeyTemplate reads a key template. "{key}" may appear at most once; any other
// "{…}" is an unknown field, and an error says so.
func ParseKeyTemplate(s string) (KeyTemplate, error) {
	if s == "" {
		return KeyTemplate{}, fmt.Errorf("key must not be empty; write \"{key}\" for the request's key, or a name such as \"global\"")
	}
	rest := strings.Replace(s, templateField, "", 1)
	if i := strings.IndexAny(rest, "{}"); i >= 0 {
		field := rest[i:]
		if j := strings.IndexByte(field, '}'); j >= 0 {
			field = field[:j+1]
		}
		return KeyTemplate{}, fmt.Errorf("key %q names an unknown field %s; the only field is {key}, the request's key (write it once)", s, field)
	}
	before, after, found := strings.Cut(s, templateField)
	if !found {
		return KeyTemplate{before: s}, nil
	}
	return KeyTemplate{before: before, after: after, perKey: true}, nil
}

// Render is the key of the request key's state.
func (t KeyTemplate) Render(key string) string {
	switch {
	case t.Identity():
		return key
	case !t.perKey:
		return t.before
	}
	return t.before + key + t.after
}

// PerKey says the template names {key}: every request key has its own state.
func (t KeyTemplate) PerKey() bool { return t.perKey || t.before == "" }

// Identity says the template is "{key}" itself.
func (t KeyTemplate) Identity() bool { return t.before == "" && t.after == "" }

// String is the template as written.
func (t KeyTemplate) String() string {
	if t.PerKey() {
		return t.before + templateField + t.after
	}
	return t.before
}

// WithTemplate returns lim with its keys named by t: each call's key is rendered
// first. An identity template returns lim itself.
func WithTemplate(lim Limiter, t KeyTemplate) Limiter {
	if t.Identity() {
		return lim
	}
	return &templated{Limiter: lim, t: t}
}

// templated is a limiter whose keys are rendered by a template.
type templated struct {
	Limiter
	t KeyTemplate
}

func (l *templated) Allow(key string, now time.Duration, cost int64) Decision {
	return l.Limiter.Allow(l.t.Render(key), now, cost)
}

func (l *templated) Check(key string, now time.Duration, cost int64) Decision {
	return l.Limiter.(Checker).Check(l.t.Render(key), now, cost)
}

func (l *templated) Level(key string, now time.Duration) float64 {
	return l.Limiter.Level(l.t.Render(key), now)
}

// SetMonotonic passes the timestamp fix's switch to the limiter, if it has one.
func (l *templated) SetMonotonic(on bool) {
	if s, ok := l.Limiter.(interface{ SetMonotonic(bool) }); ok {
		s.SetMonotonic(on)
	}
}

// JoinSet passes SetJoiner through: lim joins others of its kind into a Set of
// its own, if it can.
func (l *templated) JoinSet(parts []Limiter) (Set, bool) {
	if j, ok := l.Limiter.(SetJoiner); ok {
		return j.JoinSet(parts)
	}
	return nil, false
}

// Forget drops the state of key's rendered key (a template that names no field:
// the one key every request shares), if the limiter can forget.
func (l *templated) Forget(key string) bool {
	if f, ok := l.Limiter.(Forgetter); ok {
		return f.Forget(l.t.Render(key))
	}
	return false
}

// ForgetAll drops every key's state, if the limiter can forget.
func (l *templated) ForgetAll() int {
	if f, ok := l.Limiter.(Forgetter); ok {
		return f.ForgetAll()
	}
	return 0
}

// AsChecker is l as a Checker, when it can check without charging: a limiter
// under a key template can when the limiter under it can.
func AsChecker(l Limiter) (Checker, bool) {
	if t, ok := l.(*templated); ok {
		if _, ok := t.Limiter.(Checker); !ok {
			return nil, false
		}
	}
	c, ok := l.(Checker)
	return c, ok
}
