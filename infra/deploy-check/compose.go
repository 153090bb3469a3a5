package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
)

// checkCompose loads compose.yaml as `docker compose config` does (the Compose Specification's
// schema, anchors and merges, references between services), then checks Weft's own rules: images
// pinned, nothing privileged, and a health check on every long-running Weft process.
func checkCompose(root string) ([]string, error) {
	options, err := cli.NewProjectOptions([]string{inRepo(root, "compose.yaml")}, cli.WithWorkingDirectory(root), cli.WithName("weft"))
	if err != nil {
		return nil, err
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	var problems []string
	for name, service := range project.Services {
		if service.Build == nil && (service.Image == "" || strings.HasSuffix(service.Image, ":latest") || !strings.Contains(service.Image, ":")) {
			problems = append(problems, fmt.Sprintf("service %s: image %q is not pinned to a version", name, service.Image))
		}
		if service.Privileged {
			problems = append(problems, fmt.Sprintf("service %s: privileged", name))
		}
		if len(service.Command) > 0 && (service.Command[0] == "api" || service.Command[0] == "worker") && service.HealthCheck == nil {
			problems = append(problems, fmt.Sprintf("service %s: no health check", name))
		}
	}
	for _, needed := range []string{"postgres", "temporal", "temporal-ui", "api", "worker"} {
		if _, ok := project.Services[needed]; !ok {
			problems = append(problems, fmt.Sprintf("no %s service", needed))
		}
	}
	return problems, nil
}
