package ui

import (
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/guptarohit/asciigraph"

	"ratelab/internal/printable"
	"ratelab/serve"
)

// Served is the live view of ratelab serve: per served lane, what it decided
// (accepted, refused, held, its keys), its decisions a second over the last
// minute as a graph, and the latest refusal with its key and rule. Decisions
// come from the server's goroutines (Add); the view reads them every frame.
type Served struct {
	addr          string
	lanes         []serve.Lane
	mu            sync.Mutex
	stats         []servedLane
	start         time.Time
	now           func() time.Time
	width, height int
}

// servedLane is one lane's tallies.
type servedLane struct {
	accepted, refused, held int64
	keys                    int // the keys the lane holds (serve.Arrival.Held)
	// perSecond: decisions landed in each of the last seconds, by wall-clock
	// second (ring of servedSeconds)
	accSec, refSec [servedSeconds]int64
	secOf          [servedSeconds]int64
	latest         string
}

// servedSeconds is how many seconds the graph shows.
const servedSeconds = 60

// NewServed is the live view of lanes served at addr.
func NewServed(addr string, lanes []serve.Lane) *Served {
	return &Served{addr: addr, lanes: lanes, stats: make([]servedLane, len(lanes)), start: time.Now(), now: time.Now}
}

// Add counts one decision (safe from any goroutine).
func (s *Served) Add(a serve.Arrival) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := &s.stats[a.Lane]
	l.keys = a.Held
	sec := s.now().Unix()
	slot := sec % servedSeconds
	if l.secOf[slot] != sec {
		l.secOf[slot], l.accSec[slot], l.refSec[slot] = sec, 0, 0
	}
	switch {
	case !a.Allowed:
		l.refused++
		l.refSec[slot]++
		rule := ""
		if a.Rule != "" {
			rule = " by " + wordsFirst(a.Rule)
		}
		l.latest = fmt.Sprintf("%d %s%s, key %s, at %s", a.Status, a.Word, rule, a.Key, s.now().Format("15:04:05"))
	default:
		l.accepted++
		l.accSec[slot]++
		if a.Delay > 0 {
			l.held++
		}
	}
}

type servedTick struct{}

func servedFrame() tea.Cmd {
	return tea.Tick(250*time.Millisecond, func(time.Time) tea.Msg { return servedTick{} })
}

// Init starts the frames.
func (s *Served) Init() tea.Cmd { return servedFrame() }

// Update redraws on each frame and on a resize; q or ctrl+c quits.
func (s *Served) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		s.width, s.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			return s, tea.Quit
		}
	case servedTick:
		return s, servedFrame()
	}
	return s, nil
}

// View draws every lane, as many as fit.
func (s *Served) View() tea.View {
	v := tea.NewView(clip(s.render(), s.width, s.height))
	v.AltScreen = true
	v.WindowTitle = "ratelab serve — " + s.addr
	return v
}

func (s *Served) render() string {
	if s.width < minWidth || s.height < minHeight {
		return fmt.Sprintf("ratelab serve needs %d×%d; this terminal is %d×%d", minWidth, minHeight, s.width, s.height)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "ratelab serve — http://%s — up %s — q stops the server\n", s.addr, s.now().Sub(s.start).Truncate(time.Second))
	rows := s.height - 2
	// a lane: its name, its counts, its latest refusal, then a graph of
	// graphRows rows, its axis and caption
	per := max(3, rows/len(s.lanes))
	graphRows := min(per-5, 10)
	now := s.now().Unix()
	if graphRows < 2 {
		fmt.Fprintf(&b, "(graphs hidden: %d lanes leave no room; a taller terminal shows them)\n", len(s.lanes))
		rows--
	}
	for i, l := range s.lanes {
		if rows < 3 {
			fmt.Fprintf(&b, "… %d more lanes (a taller terminal shows them)\n", len(s.lanes)-i)
			break
		}
		st := &s.stats[i]
		name := printable.Name(l.Name)
		if len(s.lanes) > 1 {
			name += "  at " + serve.LanePath(l.Name)
		}
		fmt.Fprintf(&b, "%s\n", name)
		latest := st.latest
		if latest == "" {
			latest = "no refusal yet"
		}
		fmt.Fprintf(&b, "  accepted %d  refused %d  held %d  keys %d\n", st.accepted, st.refused, st.held, st.keys)
		fmt.Fprintf(&b, "  latest refusal: %s\n", printable.Name(latest))
		rows -= 3
		if graphRows >= 2 && rows >= graphRows+2 {
			acc, ref := make([]float64, servedSeconds), make([]float64, servedSeconds)
			for j := range servedSeconds {
				sec := now - servedSeconds + 1 + int64(j)
				slot := sec % servedSeconds
				if st.secOf[slot] == sec {
					acc[j], ref[j] = float64(st.accSec[slot]), float64(st.refSec[slot])
				}
			}
			// a column a second, not stretched: a peak stays its count
			plot := asciigraph.PlotMany([][]float64{acc, ref}, asciigraph.Height(graphRows),
				asciigraph.LowerBound(0), asciigraph.Precision(0), asciigraph.SeriesColors(asciigraph.Green, asciigraph.Red),
				asciigraph.Caption("accepted (green) and refused (red) a second, the last minute"))
			b.WriteString(plot)
			b.WriteByte('\n')
			rows -= graphRows + 2
		}
	}
	return b.String()
}

// SetAddr names the address served, for the title.
func (s *Served) SetAddr(addr string) { s.addr = addr }
