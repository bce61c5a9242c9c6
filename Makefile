# Two commands do all set-up on a fresh machine: `make run` and `make test` (README.md).
.PHONY: run test build bench bench-kernels bench-discovery bench-pipeline bench-inference bench-rca bench-simulations bench-load bench-batch-large bench-temporal bench-temporal-questions bench-panels bench-mcp bench-query bench-ontology bench-connectors bench-store lint lock clean

node_modules/.installed: package.json package-lock.json
	npm ci
	@touch $@

dist/.built: node_modules/.installed $(shell find src schemas bench -name '*.ts') $(shell find assembly -name '*.ts') tsconfig.json
	npm run build
	@touch $@

build: dist/.built

## Serve the embedded default profile on HOST:PORT (default 127.0.0.1:8080), data in ./data.
run: build
	npm start

## Build, then run every test (PostgreSQL and Redis adapters too when they are reachable).
test: node_modules/.installed
	bash scripts/test.sh

## HTTP read benchmark against a bare fastify baseline; writes BENCHMARKS.md.
bench: build
	node dist/bench/http/reads.js

## WASM vs TypeScript reference kernels, sizes 10^1..10^6; writes the "Kernels" section of BENCHMARKS.md.
bench-kernels: build
	node dist/bench/kernels/kernels.js

## Static discovery side by side with the peers of ../shared/benchmarks/ANCHORS.md, then on data with columns that carry
## nothing of the model (constants, sparse columns, copies) and values missing at random; writes BENCHMARKS.md.
bench-discovery: build
	node dist/bench/engine/discovery.js
	node dist/bench/engine/discovery-robustness.js

## A twin's run-pipeline through the API vs the engine alone on the same data; writes BENCHMARKS.md.
bench-pipeline: build
	node dist/bench/engine/pipeline.js

## Interventions and prediction against exact answers (BIF networks, linear SCMs), with latency, and identification
## on random ER graphs (share identified, truth among the possible effects); writes BENCHMARKS.md.
bench-inference: build
	node dist/bench/engine/inference.js
	node dist/bench/engine/identification.js

## Temporal twins: discovery on NetSim, TCDF finance and telecom alarms beside ANCHORS.md, forecasts and effects on generated models; writes BENCHMARKS.md.
bench-temporal: build
	node dist/bench/engine/temporal.js

## Temporal root cause, anomaly scan, health monitor and optimisation on generated models and PetShop temporal traffic; writes BENCHMARKS.md.
bench-temporal-questions: build
	node dist/bench/engine/temporal-questions.js

## Multi-environment (panel) learning: Sachs 9 environments and generated panels; writes BENCHMARKS.md.
bench-panels: build
	node dist/bench/engine/panels.js

## The MCP dispatcher beside a REST read (autocannon, server CPU per request); writes the "MCP endpoint" section of BENCHMARKS.md.
bench-mcp: build
	node dist/bench/mcp/calls.js

## Ontology extraction precision and recall on generated sources; writes BENCHMARKS.md.
bench-ontology: build
	node dist/bench/ontology/extraction.js
	node dist/bench/ontology/enrichment.js

## The anchor query facility beside the same SQL on the data store (10M rows); writes BENCHMARKS.md.
bench-query: build
	node dist/bench/query/query.js

## Root cause analysis on the PetShop benchmark (../shared/benchmarks/data/petshop); writes BENCHMARKS.md.
bench-rca: build
	node dist/bench/engine/root-cause.js

## Simulation runs through the API (intervention latency, batch scoring, concurrent runs); writes BENCHMARKS.md.
bench-simulations: build
	node dist/bench/engine/simulations.js

bench-load: build
	node dist/bench/http/load.js

bench-batch-large: build
	node dist/bench/engine/batch-large.js

## Data plane: CSV uploads (plain and with units) beside chDB loading the file itself, record pages, exports; writes BENCHMARKS.md.
bench-store: build
	node dist/bench/store/store.js

# Connector import of a 1M-row PostgreSQL table vs COPY TO STDOUT through pg, same run (BENCH_PG_URL).
bench-connectors: build
	node dist/bench/connectors/import.js

## Import-boundary check (routes -> service -> repo/engine -> store/compute).
lint: node_modules/.installed
	npx depcruise src schemas workers --config .dependency-cruiser.cjs

## After changing dependencies: refresh the lock, then stub the native chdb platforms this registry lacks.
lock:
	npm install --no-audit --no-fund
	node scripts/lock-platform-stubs.mjs

clean:
	rm -rf dist coverage
