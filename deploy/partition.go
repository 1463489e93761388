package deploy

import (
	"fmt"
	"time"
)

// A partition cuts some instances off from the others and from the store
// until it heals: a message between the two sides, sent or arriving while
// they are apart, is lost (Stats.Lost), and an instance cut off cannot reach
// the store (Reaches: its decisions are the lane's on_error, as in an
// outage). The store stays on the side of the instances not cut off. What a
// protocol does when the partition heals is its own (haproxy-peers resumes
// its pushes from the last update the other side acknowledged, so each
// instance pushes every entry it touched while apart; Gubernator's hits and
// broadcasts sent while apart are lost, as its failed RPCs are).

// Partition cuts the members cut (slot numbers from 0) off from the others and
// the store at now, after the timers due, in place of the partition before;
// an empty cut heals it. A member added later joins the side that was not cut
// off.
func (d *Deployment) Partition(now time.Duration, cut []int) error {
	for _, i := range cut {
		if i < 0 || i >= d.cfg.Most {
			return fmt.Errorf("partition: instance %d of %d", i, d.cfg.Most)
		}
	}
	d.runTimers(now)
	was, wasSplit := append([]bool(nil), d.cut...), d.split
	clear(d.cut)
	for _, i := range cut {
		d.cut[i] = true
	}
	d.split = len(cut) > 0
	if h, ok := d.proto.(healer); ok && wasSplit {
		h.heal(now, was)
	}
	return nil
}

// healer is a protocol that does something when members that a partition
// kept apart are together again (it healed, or moved): was marks the side
// that was cut off.
type healer interface {
	heal(now time.Duration, was []bool)
}

// rejoined says members a and b were apart under the cut that was and are
// together now.
func (d *Deployment) rejoined(was []bool, a, b int) bool {
	return was[a] != was[b] && !d.apart(a, b)
}

// apart says a partition lies between instances a and b now.
func (d *Deployment) apart(a, b int) bool { return d.cut[a] != d.cut[b] }

// Reaches says instance inst can reach the store now: it is not cut off.
func (d *Deployment) Reaches(inst int) bool { return !d.cut[inst] }
