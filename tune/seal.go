package tune

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
)

// The files a partitioned sweep's stages pass on (summaries, plans, partials)
// travel between machines and through storage, and a digit changed in one
// would still be a file that reads: a count off by one, another key named, a
// report subtly wrong. Each ends with a seal, a last line
// {"sha256":"<hex>"} of the SHA-256 of every byte before it, and a file whose
// seal does not match is refused, naming it. (The checks of each field still
// run: a seal says the file is what a stage wrote, not that the stage was
// given the right files.) Partial sweeps that an older ratelab wrote for
// --partition have no seal and are still read; a partitioned sweep's must
// have one.

// sealWriter hashes what goes through it to w.
type sealWriter struct {
	w io.Writer
	h hash.Hash
}

func newSealWriter(w io.Writer) *sealWriter { return &sealWriter{w: w, h: sha256.New()} }

func (s *sealWriter) Write(p []byte) (int, error) {
	s.h.Write(p)
	return s.w.Write(p)
}

// seal writes the seal line of everything written so far.
func (s *sealWriter) seal() error {
	_, err := fmt.Fprintf(s.w, "{\"sha256\":%q}\n", hex.EncodeToString(s.h.Sum(nil)))
	return err
}

// sealPrefix starts a seal line.
const sealPrefix = `{"sha256":`

// unseal splits data into its body and checks the seal that ends it; sealed
// says there was one. A seal that does not match is an error naming name.
func unseal(name string, data []byte) (body []byte, sealed bool, err error) {
	trimmed := bytes.TrimRight(data, "\n")
	i := bytes.LastIndexByte(trimmed, '\n')
	last := trimmed[i+1:]
	if !bytes.HasPrefix(last, []byte(sealPrefix)) {
		return data, false, nil
	}
	body = data[:i+1]
	var s struct {
		SHA256 string `json:"sha256"`
	}
	dec := json.NewDecoder(bytes.NewReader(last))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, true, fmt.Errorf("%s: its last line is not a seal {\"sha256\": …}: %v", name, err)
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != s.SHA256 {
		return nil, true, fmt.Errorf("%s: the file is not as it was written (its SHA-256 is not the one it ends with): it was changed or damaged on the way; make it again", name)
	}
	return body, true, nil
}

// decodeSealed reads a whole stage file, checks its seal, and decodes the one
// JSON value it holds into v, no field unknown; trailing says something follows
// the value (the callers check the version first, then that).
func decodeSealed(name string, r io.Reader, v any) (sealed, trailing bool, err error) {
	body, sealed, err := readSealed(name, r)
	if err != nil {
		return sealed, false, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return sealed, false, &decodeError{err}
	}
	_, err = dec.Token()
	return sealed, err != io.EOF, nil
}

// decodeError is a file that is not the JSON its reader wants.
type decodeError struct{ err error }

func (e *decodeError) Error() string { return e.err.Error() }

// readSealed reads a whole stage file and checks its seal.
func readSealed(name string, r io.Reader) (body []byte, sealed bool, err error) {
	data, err := io.ReadAll(bufio.NewReaderSize(r, 1<<20))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %v", name, err)
	}
	return unseal(name, data)
}
