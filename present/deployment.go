package present

import (
	"fmt"
	"slices"
	"strings"

	"ratelab/internal/format"
	"ratelab/sim"
)

// DeploymentColumns are the columns of a run with a deployed lane, after
// over-grant: what each deployment did against its ideal (sim.Metrics'
// deployment figures); a dash for a lane that is not one.
var DeploymentColumns = []Column{
	{"overshoot", func(m sim.Metrics) string {
		return deployedCell(m, fmt.Sprintf("+%d", m.OvershootWindowUnits))
	}, "a deployment: the most it admitted beyond one ideal limiter of its policy, fed the same requests, for one key in any span of a period", "overshoot_window_units"},
	{"vs ideal", func(m sim.Metrics) string {
		return deployedCell(m, fmt.Sprintf("%+d", m.ExcessAdmissions-m.FalseDenials))
	}, "a deployment: the decisions it admitted that the ideal refused, less those it refused that the ideal admitted", "excess_admissions"},
	{"msgs/s", func(m sim.Metrics) string {
		return deployedCell(m, format.Number(format.RoundTo(m.SyncMessagesPerSecond+m.StoreCallsPerSecond, 0.1)))
	}, "a deployment: the messages its protocol sent between instances and to its store, per second", "sync_messages_per_second"},
}

// deployedCell is cell for a deployed lane, a dash for another.
func deployedCell(m sim.Metrics, cell string) string {
	if !m.Deployed() {
		return "—"
	}
	return cell
}

// deploymentColumns adds DeploymentColumns after over-grant when cfg has a
// deployed lane.
func deploymentColumns(cfg *sim.Config, cols []Column) []Column {
	if cfg == nil || !slices.ContainsFunc(cfg.Lanes, sim.LaneConfig.Deployed) {
		return cols
	}
	at := slices.IndexFunc(cols, func(c Column) bool { return c.Metric == "over_grant" }) + 1
	return slices.Concat(cols[:at:at], DeploymentColumns, cols[at:])
}

// deploymentFact is what a deployed lane did against its ideal, for its
// verdict.
func deploymentFact(lane sim.LaneConfig, m sim.Metrics) string {
	fact := fmt.Sprintf("%s, sync %s", plural(int64(m.Instances), "instance", "instances"), lane.Deploy.Sync) // the membership now
	if lane.Deploy.Latency > 0 {
		fact += fmt.Sprintf(" over links of %s", format.Duration(lane.Deploy.Latency))
	}
	var against []string
	switch {
	case m.OvershootWindowUnits > 0:
		against = append(against, fmt.Sprintf("up to %s beyond one ideal limiter for one key in a period (%s× the limit)", plural(m.OvershootWindowUnits, "unit", "units"), format.Ratio(m.OvershootRatio)))
	default:
		against = append(against, "never beyond one ideal limiter in a period")
	}
	switch net := m.Accepted - m.IdealAccepted; {
	case net > 0:
		against = append(against, fmt.Sprintf("%d admitted more than the ideal over the run", net))
	case net < 0:
		against = append(against, fmt.Sprintf("%d fewer than the ideal over the run", -net))
	}
	switch {
	case !m.Converged():
		against = append(against, "still more than a tenth of the limit off it at a membership change's next change or the run's end")
	case m.Converge > 0:
		against = append(against, fmt.Sprintf("back within a tenth of the limit of it %s after a membership change (the longest)", format.Duration(m.Converge)))
	}
	return fact + ": " + strings.Join(against, "; ")
}
