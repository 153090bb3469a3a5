# Two commands: `make up` runs Weft locally, `make test` runs every suite against real services.
SHELL := /bin/bash
TSX := node_modules/.bin/tsx
# The pinned Node LTS (.node-version), installed by infra/ensure-node.sh when the machine's is older.
export PATH := $(CURDIR)/.tools/node/bin:$(PATH)
PROTOS := $(wildcard protos/shannon/*/*.proto)

.PHONY: up cluster test test-cluster deploy-check eval lint format format-check typecheck jest deps node temporal-cli test-tools docs docs-references docs-check docs-quickstart

up: deps temporal-cli
	$(TSX) infra/up.ts

# Weft on the real Temporal server (separate services, Postgres), two APIs and two workers.
cluster: deps temporal-cli
	$(TSX) infra/cluster.ts

# Last, the quickstart's commands against a real `make up` (it needs make up's ports free: stop a running one first).
test: deps test-tools format-check lint typecheck docs-check jest docs-quickstart

jest: deps
	node_modules/.bin/jest

# The core end-to-end paths (STANDARD, COMPLEX, approval, cancel, pause and resume, stream resume, replay, scale-out)
# against Temporal's real server as `make cluster` runs it; the first run builds the server.
CLUSTER_SUITES := test/e2e/thin-path.test.ts test/e2e/routing-and-agents.test.ts test/e2e/approvals.test.ts \
	test/e2e/cancellation.test.ts test/e2e/pause-resume.test.ts test/api/streaming.test.ts test/cli/replay.test.ts test/e2e/scale-out.test.ts test/e2e/worker-versioning.test.ts test/e2e/schedules.test.ts \
	test/e2e/openai-responses-failover.test.ts
test-cluster: deps test-tools
	WEFT_TEST_TEMPORAL=cluster node_modules/.bin/jest $(CLUSTER_SUITES)

# The demo eval set (evals/demo.yaml) against a running Weft (`make up` in another terminal): its
# queries recorded once, then run again on the current code; exit 1 when an answer no longer scores.
EVAL_REPORTS := .state/eval
eval: deps
	mkdir -p $(EVAL_REPORTS)
	$(TSX) cli/weft.ts eval record demo
	$(TSX) cli/weft.ts eval --baseline demo --fail-on "score<1 || failed>0" --markdown $(EVAL_REPORTS)/demo.md --junit $(EVAL_REPORTS)/demo.xml

# The Dockerfile, compose.yaml and deploy/kubernetes, validated offline (infra/deploy-check).
deploy-check:
	cd infra/deploy-check && PATH="/usr/local/go/bin:$$PATH" go run . ../..

lint: deps
	node_modules/.bin/eslint .

# Prettier (.prettierrc.json) on every TypeScript and JavaScript file; `make format` rewrites them.
format-check: deps
	node_modules/.bin/prettier --check --log-level warn "**/*.{ts,mjs,js}"

format: deps
	node_modules/.bin/prettier --write --log-level warn "**/*.{ts,mjs,js}"

typecheck: deps
	node_modules/.bin/tsc --noEmit

deps: node node_modules/.weft-installed protos/generated/.stamp

node:
	@infra/ensure-node.sh

# npm ci runs again only when the lockfile changes.
node_modules/.weft-installed: package-lock.json | node
	npm ci --no-audit --no-fund
	touch $@

protos/generated/.stamp: $(PROTOS) node_modules/.weft-installed
	rm -rf protos/generated
	npm run --silent proto:gen
	touch $@

# The docs site (docs/, VitePress, offline) into docs/.vitepress/dist, after regenerating docs/reference/ from the code,
# type-checking and compiling docs/examples/, checking that the pages' code blocks are lines of those samples, and
# checking the links of the Markdown files outside docs/; a dead link fails the build.
docs: docs-references
	node_modules/.bin/tsc --noEmit -p docs/examples
	python3 -c 'import sys; [compile(open(f).read(), f, "exec") for f in sys.argv[1:]]' docs/examples/*.py
	$(TSX) infra/docs/check-samples.ts
	$(TSX) infra/docs/check-repo-links.ts
	node_modules/.bin/vitepress build docs

# docs/reference/ from the code: the settings schema, the CLI's tree, the protos, the event catalog, the metric
# definitions, the task service's error vocabulary, the OpenAPI document.
docs-references: deps
	$(TSX) infra/docs/generate-references.ts

# make test's docs step: the site builds, and the checked-in references are what the code generates (a new setting,
# command, RPC, event type or route without its reference fails here).
docs-check: docs
	@git diff --exit-code --stat -- docs/reference || { echo "docs/reference is out of date: run make docs-references and commit it"; exit 1; }
	@untracked=$$(git ls-files --others --exclude-standard -- docs/reference); \
		if [ -n "$$untracked" ]; then echo "docs/reference has pages not committed: $$untracked"; exit 1; fi

# The quickstart's commands (README.md, docs/tutorials/quickstart.md) run against a real `make up` with the demo
# model, their exit codes and output checked.
docs-quickstart: deps temporal-cli
	infra/docs/quickstart-check.sh

# Builds the Temporal CLI and grpcurl into .tools/bin unless already installed.
temporal-cli: deps
	@$(TSX) infra/ensure-tools.ts

test-tools: deps
	@$(TSX) infra/ensure-tools.ts --test
