package ui

import (
	"fmt"

	"ratelab/internal/format"
	"ratelab/sim"
)

// A deployed lane's panel rows (see renderPanel) and words.

// deploymentWords says a deployed lane's protocol and links: "kong-sync",
// "central over 1ms".
func deploymentWords(lane sim.LaneConfig) string {
	w := lane.Deploy.Sync.String()
	if lane.Deploy.Latency > 0 {
		w += " over " + format.Duration(lane.Deploy.Latency)
	}
	return w
}

// deploymentRows is how many rows a deployed lane's panel h high adds under
// its bars, keeping the graph at least 3 rows: what it admitted beyond its
// ideal (over), then its strip of instances; none for another lane.
func deploymentRows(lane sim.LaneConfig, h int) int {
	if !lane.Deployed() {
		return 0
	}
	return min(2, max(0, h-minPanelHeight))
}

// instanceStrip is a deployed lane's members in one row, inner cells wide: a
// bar per instance, as high as what it admitted in the last tick against the
// busiest instance (blank: none), then the membership and protocol; members
// that do not fit are counted after a +.
func (m *Model) instanceStrip(lane sim.LaneConfig, admitted []int64, members, inner int) string {
	st := m.styles
	if len(admitted) < members { // before the first tick closes: none yet
		admitted = append(admitted[:len(admitted):len(admitted)], make([]int64, members-len(admitted))...)
	}
	cells := inner - axisWidth // the cells after the label
	// the words after the bars, the longest that leaves a bar for each
	// member, else the shortest
	var about string
	for _, a := range []string{" " + fmt.Sprintf("%d× %s", len(admitted), deploymentWords(lane)), fmt.Sprintf(" %d× %s", len(admitted), lane.Deploy.Sync), fmt.Sprintf(" %d×", len(admitted))} {
		about = a
		if len(admitted)+len([]rune(a)) <= cells {
			break
		}
	}
	room := cells - len([]rune(about))
	shown, more := admitted, ""
	if room < len(admitted) {
		keep := max(0, room-5)
		shown, more = admitted[:keep], fmt.Sprintf("+%d", len(admitted)-keep)
	}
	strip := st.Counters.Render(fmt.Sprintf("%*s", axisWidth, "inst ▕")) + st.Accept.Render(bars(shown, maxOf(admitted))) + st.Subtle.Render(more+about)
	return truncate(strip, inner)
}
