package tune

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// A log's key may be any bytes (a path, a User-Agent, an address a scanner
// forged), and a JSON string holds only UTF-8: encoding/json would write
// invalid bytes as U+FFFD, and a key read back would name another key, or
// two keys the same one. The files a partitioned sweep's stages pass on
// (summaries, plans, partials) write a key that is valid UTF-8 as a string and
// any other as {"bytes": base64}, which reads back byte for byte.

// keyJSON is one key as those files write it.
func keyJSON(key string) any {
	if utf8.ValidString(key) {
		return key
	}
	return struct {
		Bytes []byte `json:"bytes"`
	}{[]byte(key)}
}

// keyFromJSON reads what keyJSON wrote.
func keyFromJSON(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var b struct {
		Bytes []byte `json:"bytes"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil || b.Bytes == nil {
		return "", fmt.Errorf("a key is a string or {\"bytes\": base64}")
	}
	return string(b.Bytes), nil
}

// keyList is keys as JSON, each as keyJSON writes it.
type keyList []string

func (k keyList) MarshalJSON() ([]byte, error) {
	out := make([]any, len(k))
	for i, key := range k {
		out[i] = keyJSON(key)
	}
	return json.Marshal(out)
}

func (k *keyList) UnmarshalJSON(b []byte) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return err
	}
	out := make(keyList, len(raws))
	for i, raw := range raws {
		key, err := keyFromJSON(raw)
		if err != nil {
			return fmt.Errorf("key %d: %v", i, err)
		}
		out[i] = key
	}
	*k = out
	return nil
}
