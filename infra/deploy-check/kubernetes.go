package main

import (
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// A variable whose value must come from a Secret, never from the manifest.
var secretName = regexp.MustCompile(`KEY|TOKEN|PASSWORD|SECRET|DATABASE_URL`)

// checkKubernetes builds deploy/kubernetes as `kubectl apply -k` would, decodes every object
// strictly (an unknown or misspelt field is an error) into its API type, and checks Weft's rules.
func checkKubernetes(root string) ([]string, error) {
	built, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), inRepo(root, "deploy", "kubernetes"))
	if err != nil {
		return nil, fmt.Errorf("kustomize: %w", err)
	}
	decoder := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{Yaml: true, Strict: true})
	var objects []runtime.Object
	var problems []string
	for _, resource := range built.Resources() {
		source, err := resource.AsYAML()
		if err != nil {
			return nil, err
		}
		object, _, err := decoder.Decode(source, nil, nil)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %s: %v", resource.GetKind(), resource.GetName(), err))
			continue
		}
		objects = append(objects, object)
	}
	return append(problems, checkObjects(objects)...), nil
}

func checkObjects(objects []runtime.Object) []string {
	var problems []string
	var podLabels []labels.Set
	kinds := map[string]int{}
	for _, object := range objects {
		switch o := object.(type) {
		case *appsv1.Deployment:
			kinds["Deployment"]++
			podLabels = append(podLabels, o.Spec.Template.Labels)
			problems = append(problems, checkPod("Deployment "+o.Name, o.Spec.Template.Spec, true)...)
		case *batchv1.Job:
			problems = append(problems, checkPod("Job "+o.Name, o.Spec.Template.Spec, false)...)
		}
	}
	for _, object := range objects {
		switch o := object.(type) {
		case *policyv1.PodDisruptionBudget:
			kinds["PodDisruptionBudget"]++
			if !selectsAny(labels.SelectorFromSet(o.Spec.Selector.MatchLabels), podLabels) {
				problems = append(problems, fmt.Sprintf("PodDisruptionBudget %s selects no Deployment's pods", o.Name))
			}
		case *corev1.Service:
			if !selectsAny(labels.SelectorFromSet(o.Spec.Selector), podLabels) {
				problems = append(problems, fmt.Sprintf("Service %s selects no Deployment's pods", o.Name))
			}
		}
	}
	if kinds["Deployment"] < 2 || kinds["PodDisruptionBudget"] < kinds["Deployment"] {
		problems = append(problems, fmt.Sprintf("expected an API and a worker Deployment, each with a PodDisruptionBudget; found %v", kinds))
	}
	return problems
}

func selectsAny(selector labels.Selector, sets []labels.Set) bool {
	for _, set := range sets {
		if selector.Matches(set) {
			return true
		}
	}
	return false
}

// checkPod: non-root, no privilege escalation, resources, secrets by reference, and (for
// long-running pods) probes on a port the container declares.
func checkPod(owner string, pod corev1.PodSpec, longRunning bool) []string {
	var problems []string
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		problems = append(problems, owner+": the pod must set runAsNonRoot: true")
	}
	for _, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
		where := fmt.Sprintf("%s container %s", owner, c.Name)
		if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
			problems = append(problems, where+": allowPrivilegeEscalation must be false")
		}
		if c.Resources.Requests.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() || c.Resources.Limits.Memory().IsZero() {
			problems = append(problems, where+": needs CPU and memory requests and a memory limit")
		}
		if strings.HasSuffix(c.Image, ":latest") {
			problems = append(problems, where+": image :latest")
		}
		for _, env := range c.Env {
			if secretName.MatchString(env.Name) && (env.ValueFrom == nil || env.ValueFrom.SecretKeyRef == nil) {
				problems = append(problems, fmt.Sprintf("%s: %s must come from a Secret (secretKeyRef)", where, env.Name))
			}
		}
		if longRunning {
			problems = append(problems, checkProbes(where, c)...)
		}
	}
	return problems
}

func checkProbes(where string, c corev1.Container) []string {
	var problems []string
	ports := map[string]bool{}
	for _, port := range c.Ports {
		ports[port.Name] = true
	}
	for kind, probe := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if probe == nil || probe.HTTPGet == nil {
			problems = append(problems, fmt.Sprintf("%s: needs an HTTP %s probe", where, kind))
			continue
		}
		if port := probe.HTTPGet.Port.StrVal; port != "" && !ports[port] {
			problems = append(problems, fmt.Sprintf("%s: %s probe port %s is not a container port", where, kind, port))
		}
	}
	return problems
}
