// Package k8scheck holds the Kubernetes Jobs package emit writes against the
// Job API itself: every document is decoded strictly (a field the API does not
// have fails) into k8s.io/api's batch/v1 Job, split as kubectl splits a file,
// and its values checked. It is a module of its own: the Kubernetes API types
// (k8s.io/api, k8s.io/apimachinery and theirs) stay out of ratelab's go.mod
// and a newcomer's first build; .ci/run runs its test.
package k8scheck
