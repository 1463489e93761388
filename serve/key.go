package serve

import (
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"strings"
)

// KeyOf is how a lane keys a request: the parts of KeySpec, joined by "+".
type KeyOf struct {
	spec  string
	parts []keyPart
	// escape: the key has several values, each escaped in the join (see Of)
	escape bool
}

type keyPart struct {
	kind   string // "ip", "user", "path", "method", "header", "shared"
	header string // for "header": its canonical name
}

// ParseKey reads a key spec: "ip" (the client's address), "user" (the basic-auth
// user), "path", "method", "header:NAME", several joined by "+" ("ip+path"), or
// "shared" (one key every request shares). The words are those of a request
// log's fields (traces' --key), so a product's key maps onto them as it does for
// a replay (products.Key.Trace).
func ParseKey(spec string) (KeyOf, error) {
	if strings.TrimSpace(spec) == "" {
		return KeyOf{}, fmt.Errorf("an empty key; give ip, user, path, method, header:NAME or shared, several joined by +")
	}
	k := KeyOf{spec: spec}
	for _, w := range strings.Split(spec, "+") {
		w = strings.TrimSpace(w)
		switch {
		case w == "ip" || w == "user" || w == "path" || w == "method" || w == "shared":
			k.parts = append(k.parts, keyPart{kind: w})
		case strings.HasPrefix(w, "header:") && len(w) > len("header:"):
			name := w[len("header:"):]
			if strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
				return KeyOf{}, fmt.Errorf("key %q: %q is not a header name", spec, name)
			}
			k.parts = append(k.parts, keyPart{kind: "header", header: textproto.CanonicalMIMEHeaderKey(name)})
		default:
			return KeyOf{}, fmt.Errorf("key %q: unknown part %q; give ip, user, path, method, header:NAME or shared, several joined by +", spec, w)
		}
	}
	values := 0 // the parts that give a value (all but shared)
	for _, p := range k.parts {
		if p.kind != "shared" {
			values++
		}
	}
	k.escape = values > 1
	return k, nil
}

// String is the spec as given.
func (k KeyOf) String() string { return k.spec }

// Of is r's key: its parts' values joined by "+" ("" for shared). A key of
// one value is that value as sent. A key of several escapes each value's "\"
// and "+" with a "\" (path "/a+b" and header "c" give `/a\+b+c`), so two
// requests share a key only when every value is the same: unescaped, ("1+2",
// "3") and ("1", "2+3") would both be "1+2+3" and share one bucket.
func (k KeyOf) Of(r *http.Request) string {
	var b strings.Builder
	for i, p := range k.parts {
		if i > 0 && p.kind != "shared" {
			b.WriteByte('+')
		}
		v := ""
		switch p.kind {
		case "ip":
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				host = r.RemoteAddr
			}
			v = host
		case "user":
			v, _, _ = r.BasicAuth()
		case "path":
			v = r.URL.Path
		case "method":
			v = r.Method
		case "header":
			v = r.Header.Get(p.header)
		}
		if k.escape && strings.ContainsAny(v, `\+`) {
			v = partEscaper.Replace(v)
		}
		b.WriteString(v)
	}
	return b.String()
}

// partEscaper escapes a value within a key of several: "\" and "+" each
// after a "\".
var partEscaper = strings.NewReplacer(`\`, `\\`, "+", `\+`)
