package present

import (
	"testing"
	"time"
)

func TestCSVFields(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "a,b": `"a,b"`, `say "hi"`: `"say ""hi"""`, " pad": `" pad"`, "": ""} {
		if got := CSVField(in); got != want {
			t.Errorf("CSVField(%q) = %s, want %s", in, got, want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0.000", 1500 * time.Microsecond: "1.500", 12345678 * time.Microsecond: "12345.678", -time.Millisecond: "-1.000"} {
		if got := string(appendMillis(nil, d)); got != want {
			t.Errorf("appendMillis(%v) = %s, want %s", d, got, want)
		}
	}
	for v, want := range map[float64]string{0: "0", 0.5: "0.5", 2.0 / 3: "0.666667", -1e-9: "0", 99: "99"} {
		if got := string(appendDecimal(nil, v)); got != want {
			t.Errorf("appendDecimal(%g) = %s, want %s", v, got, want)
		}
	}
}

func TestExactMillis(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0.000000", time.Nanosecond: "0.000001", 1500*time.Millisecond + 3: "1500.000003",
		-286752 * time.Microsecond: "-286.752000", 999999: "0.999999",
	} {
		if got := string(appendExactMillis(nil, d)); got != want {
			t.Errorf("%d ns: %s, want %s", int64(d), got, want)
		}
	}
}
