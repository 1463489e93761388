package deploy

import (
	"fmt"
	"time"

	"ratelab/algorithms"
)

// haproxyPeersSum is the HAProxyPeersSum protocol: the "one table per server,
// sum the rates" pattern over HAProxy's peers. A peers section pushes an
// entry "without aggregation" (doc/configuration.txt §11.2: the pushed values
// overwrite remote ones), so a shared table loses the counts two servers make
// between pushes (haproxyPeers). The pattern gives each server a table of its
// own (stick-table st_<server> in every server's configuration), in which
// only that server tracks requests and which its peers receive; the deny rule
// adds the tables' rates (sc_http_req_rate of its own, table_http_req_rate of
// each other, with the add converter). No count is lost, since each table has
// one writer; a server reads another's count a link's latency late.
//
// Instance i tracks a request in its own table and decides on its rate plus
// the rates its copies of the other members' tables read
// (algorithms.HAProxy.AllowSum); an entry it touched is pushed at once to
// every other member, whose copy of i's table it overwrites (Receive), as
// haproxyPeers pushes. A new member starts with empty tables; a member
// removed takes its table with it (a scale changes every server's
// configuration, which lists the tables). A partition loses the pushes across
// it; on healing each member pushes what it touched while apart, as
// haproxyPeers does.
type haproxyPeersSum struct {
	d      *Deployment
	own    []*algorithms.HAProxy
	copies [][]*algorithms.HAProxy // copies[i][j]: member i's copy of j's table
	pushes *peerPushes
}

func newHAProxyPeersSum(d *Deployment) (protocol, error) {
	p := &haproxyPeersSum{d: d, own: make([]*algorithms.HAProxy, d.cfg.Most), copies: make([][]*algorithms.HAProxy, d.cfg.Most)}
	p.pushes = newPeerPushes(d, func(from int) *algorithms.HAProxy { return p.own[from] },
		func(to, from int) *algorithms.HAProxy { return p.copies[to][from] })
	for i := range d.members {
		if err := p.fresh(i); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// table is a new, empty HAProxy table of the lane.
func (p *haproxyPeersSum) table() (*algorithms.HAProxy, error) {
	lim, err := p.d.cfg.New()
	if err != nil {
		return nil, err
	}
	h, ok := lim.(*algorithms.HAProxy)
	if !ok {
		return nil, fmt.Errorf("sync %q is HAProxy's: it needs HAProxy's lane (got %s)", HAProxyPeersSum, lim.Algorithm())
	}
	return h, nil
}

// fresh gives member i its own table and empty copies of every slot's.
func (p *haproxyPeersSum) fresh(i int) error {
	own, err := p.table()
	if err != nil {
		return err
	}
	p.own[i], p.copies[i] = own, make([]*algorithms.HAProxy, p.d.cfg.Most)
	for j := range p.copies[i] {
		if j != i {
			if p.copies[i][j], err = p.table(); err != nil {
				return err
			}
		}
	}
	return nil
}

// others is what member i's copies of the other members' tables read for key.
func (p *haproxyPeersSum) others(i int, key string, now time.Duration) int64 {
	var sum int64
	for j := range p.d.members {
		if j != i {
			sum += int64(p.copies[i][j].Level(key, now))
		}
	}
	return sum
}

func (p *haproxyPeersSum) decide(inst int, key string, now time.Duration, _ int64) (algorithms.Decision, time.Duration) {
	h := p.own[inst]
	before, _ := h.Entry(key, now)
	d := h.AllowSum(key, now, p.others(inst, key, now))
	p.pushes.touched(inst, key, before, now)
	return d, 0
}

// heal pushes what the members touched while apart (peerPushes.heal).
func (p *haproxyPeersSum) heal(now time.Duration, was []bool) { p.pushes.heal(now, was) }

// restart gives member i an empty table of its own and empty copies of the
// others'; the others keep their copies of its old table until its pushes
// overwrite them.
func (p *haproxyPeersSum) restart(_ time.Duration, i int) { _ = p.fresh(i) }

func (p *haproxyPeersSum) scale(_ time.Duration, before, n int) {
	for i := n; i < before; i++ {
		p.own[i], p.copies[i] = nil, nil
	}
	for i := before; i < n; i++ {
		_ = p.fresh(i)
	}
	for i := range min(before, n) { // a survivor's copies of the slots that changed start empty
		for j := min(before, n); j < max(before, n); j++ {
			p.copies[i][j], _ = p.table()
		}
	}
}

// level is the busiest member's sum for key.
func (p *haproxyPeersSum) level(key string, now time.Duration) float64 {
	var most float64
	for i := range p.d.members {
		most = max(most, p.own[i].Level(key, now)+float64(p.others(i, key, now)))
	}
	return most
}

func (p *haproxyPeersSum) forget() {}

// failover: the tables live in the instances' memory.
func (p *haproxyPeersSum) failover(time.Duration) {}
