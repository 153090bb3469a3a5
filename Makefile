# Two commands: `make up` runs Weft locally, `make test` runs every suite against real services.
SHELL := /bin/bash
TSX := node_modules/.bin/tsx
PROTOS := $(wildcard protos/shannon/*/*.proto)

.PHONY: up cluster test lint typecheck jest deps temporal-cli test-tools

up: deps temporal-cli
	$(TSX) infra/up.ts

# Weft on the real Temporal server (separate services, Postgres), two APIs and two workers.
cluster: deps temporal-cli
	$(TSX) infra/cluster.ts

test: deps test-tools lint typecheck jest

jest: deps
	node_modules/.bin/jest

lint: deps
	node_modules/.bin/eslint .

typecheck: deps
	node_modules/.bin/tsc --noEmit

deps: node_modules/.weft-installed protos/generated/.stamp

# npm ci runs again only when the lockfile changes.
node_modules/.weft-installed: package-lock.json
	npm ci --no-audit --no-fund
	touch $@

protos/generated/.stamp: $(PROTOS) node_modules/.weft-installed
	rm -rf protos/generated
	npm run --silent proto:gen
	touch $@

# Builds the Temporal CLI and grpcurl into .tools/bin unless already installed.
temporal-cli: node_modules/.weft-installed
	@$(TSX) infra/ensure-tools.ts

test-tools: node_modules/.weft-installed
	@$(TSX) infra/ensure-tools.ts --test
