// Package gubernatorcheck holds ratelab's GLOBAL model (package deploy)
// against a cluster of Gubernator's own daemons (gubernator-io/gubernator
// v2.13.0), started by the test in its own process on loopback ports. It is a
// module of its own: Gubernator's dependencies (gRPC, etcd, the Kubernetes
// client) stay out of ratelab's go.mod and a newcomer's first build; .ci/run
// runs its test.
package gubernatorcheck
