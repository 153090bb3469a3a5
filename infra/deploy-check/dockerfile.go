package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// checkDockerfile parses the Dockerfile as `docker build` does, runs BuildKit's lint rules, and
// checks that the final stage runs as a non-root user and that the files it copies from the
// build context exist.
func checkDockerfile(root string) ([]string, error) {
	source, err := os.ReadFile(inRepo(root, "Dockerfile"))
	if err != nil {
		return nil, err
	}
	ast, err := parser.Parse(bytes.NewReader(source))
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var problems []string
	lint := linter.New(&linter.Config{Warn: func(rule, description, url, message string, _ []parser.Range) {
		problems = append(problems, fmt.Sprintf("lint %s: %s", rule, message))
	}})
	stages, _, err := instructions.Parse(ast.AST, lint)
	if err != nil {
		return nil, fmt.Errorf("instructions: %w", err)
	}
	if len(stages) < 2 {
		problems = append(problems, "expected a multi-stage build")
	}
	final := stages[len(stages)-1]
	user := ""
	for _, command := range final.Commands {
		switch c := command.(type) {
		case *instructions.UserCommand:
			user = c.User
		case *instructions.EntrypointCommand:
			problems = append(problems, missingAppFiles(root, c.CmdLine)...)
		}
	}
	if user == "" || user == "root" || user == "0" {
		problems = append(problems, "the final stage must switch to a non-root USER")
	}
	for _, stage := range stages {
		for _, command := range stage.Commands {
			if c, ok := command.(*instructions.CopyCommand); ok {
				problems = append(problems, missingSources(root, c)...)
			}
		}
	}
	return dedupe(problems), nil
}

// missingSources names the context files a COPY needs that are not in the repository.
func missingSources(root string, c *instructions.CopyCommand) []string {
	if c.From != "" {
		return nil
	}
	var missing []string
	for _, source := range c.SourcePaths {
		if strings.ContainsAny(source, "*?[") || source == "." {
			continue
		}
		if _, err := os.Stat(inRepo(root, source)); err != nil {
			missing = append(missing, fmt.Sprintf("COPY source %s is not in the repository", source))
		}
	}
	return missing
}

// missingAppFiles names the /app paths an ENTRYPOINT runs that the repository (copied to /app) lacks.
func missingAppFiles(root string, args []string) []string {
	var missing []string
	for _, arg := range args {
		if rest, ok := strings.CutPrefix(arg, "/app/"); ok {
			if _, err := os.Stat(inRepo(root, rest)); err != nil {
				missing = append(missing, fmt.Sprintf("ENTRYPOINT runs %s, which is not in the repository", arg))
			}
		}
	}
	return missing
}

func dedupe(lines []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, line := range lines {
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}
