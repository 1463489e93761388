package tracegen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// Large is a log of any size written as it is generated, in memory bounded by
// nothing but a line: Lines requests from Keys addresses drawn by Zipf's law
// (s = 1.1, so a few keys are heavy and most are light), Rate lines a second in
// time order, in the Combined Log Format Write uses. For benchmarks of logs too
// large to hold: a 100-million-line log is about 11 GB.
type Large struct {
	Start time.Time
	Lines int64
	Keys  uint64
	Rate  float64 // lines a second
	Seed  uint64
}

// WriteLarge writes l to w and returns the bytes written.
func WriteLarge(w io.Writer, l Large) (int64, error) {
	rng := rand.New(rand.NewPCG(l.Seed, 0x6c61726765))
	zipf := rand.NewZipf(rng, 1.1, 1, max(l.Keys, 1)-1)
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	var written int64
	lastSec, stamp := int64(-1), ""
	start := l.Start.Unix()
	for i := range l.Lines {
		sec := start + int64(float64(i)/l.Rate)
		if sec != lastSec {
			lastSec, stamp = sec, time.Unix(sec, 0).In(l.Start.Location()).Format("02/Jan/2006:15:04:05 -0700")
		}
		k := zipf.Uint64()
		line = fmt.Appendf(line[:0], "10.%d.%d.%d - - [%s] \"GET %s HTTP/1.1\" 200 %d \"-\" \"Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0\"\n",
			k>>16&255, k>>8&255, k&255, stamp, paths[i%int64(len(paths))], 512+(i&7)*1024)
		n, err := bw.Write(line)
		written += int64(n)
		if err != nil {
			return written, err
		}
	}
	return written, bw.Flush()
}
