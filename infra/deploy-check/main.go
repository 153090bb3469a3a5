// Command deploy-check validates Weft's deployment files offline, with the libraries the real tools
// use: the Dockerfile with BuildKit's parser and linter (docker build --check), compose.yaml with
// compose-go (docker compose config), and the Kubernetes manifests built with kustomize's API
// (kubectl apply -k) and decoded strictly into the Kubernetes API types, then checked against
// Weft's own rules (probes, resources, non-root, secrets by reference, budgets that select pods).
//
//	go run ./infra/deploy-check [repo root]
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	checks := []struct {
		name string
		run  func(string) ([]string, error)
	}{
		{"Dockerfile", checkDockerfile},
		{"compose.yaml", checkCompose},
		{"deploy/kubernetes", checkKubernetes},
	}
	failed := false
	for _, check := range checks {
		problems, err := check.run(root)
		if err != nil {
			problems = append(problems, err.Error())
		}
		if len(problems) == 0 {
			fmt.Printf("ok   %s\n", check.name)
			continue
		}
		failed = true
		for _, problem := range problems {
			fmt.Printf("FAIL %s: %s\n", check.name, problem)
		}
	}
	if failed {
		os.Exit(1)
	}
}

// inRepo is a path of the repository being checked.
func inRepo(root string, parts ...string) string {
	return filepath.Join(append([]string{root}, parts...)...)
}
