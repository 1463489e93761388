package kong

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// kongYAML is a declarative kong.yml with the plugin on a service and at the
// top.
var kongYAML = configtest.Testdata("kong.yml")

func TestKongConfigs(t *testing.T) {
	configtest.CheckCases(t, Info, []configtest.Case{
		{Name: "a service's and the global", Files: map[string]string{"kong.yml": kongYAML}, Main: "kong.yml",
			Lanes: `service api rate-limiting @kong.yml:6
  kong.yml:7 key=ip→ip minute=6 hour=100 policy=redis status=503
rate-limiting @kong.yml:16
  kong.yml:17 key=consumer→user second=5 policy=local status=429`,
			Warns: []string{"kong.yml:6: the plugin holds the requests of its service api"}},
		{Name: "a longer window's limit below a shorter one's", Main: "k.yml", Files: map[string]string{"k.yml": "plugins:\n- name: rate-limiting\n  config:\n    minute: 60\n    hour: 10\n"},
			Err: "k.yml:5: the limit for hour (10) is lower than the limit for minute (60)"},
		{Name: "no limit", Main: "k.yml", Files: map[string]string{"k.yml": "plugins:\n- name: rate-limiting\n  config:\n    policy: local\n"},
			Err: "k.yml:3: the plugin sets no limit"},
		{Name: "a policy Kong has not", Main: "k.yml", Files: map[string]string{"k.yml": "plugins:\n- name: rate-limiting\n  config:\n    second: 1\n    policy: memcached\n"},
			Err: `k.yml:5: policy "memcached" is not one of Kong's`},
	})
}

// The lanes run with the file's parameters.
func TestLanes(t *testing.T) {
	configtest.CheckLaneLimits(t, Info, kongYAML,
		products.RatelabLimit{Algorithm: algorithms.KongName, Policy: algorithms.Policy{Limit: 6, Period: time.Minute},
			Options: algorithms.Options{KongPolicy: algorithms.KongRedis, KongWindows: algorithms.KongWindows{algorithms.KongHour: 100}, DenyStatus: 503}},
		products.RatelabLimit{Algorithm: algorithms.KongName, Policy: algorithms.Policy{Limit: 5, Period: time.Second}})
}
