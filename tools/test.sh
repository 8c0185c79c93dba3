#!/usr/bin/env bash
# The whole test command (`npm test`): format, types, lint and unit tests of every project (Nx),
# then the end-to-end suites against real processes, PostgreSQL, Redis and NATS on 127.0.0.1, and
# last the fault schedule's short form (issue 28).
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_NO_CLOUD=true NX_DAEMON=false NX_TUI=false NX_SKIP_NX_CACHE=${NX_SKIP_NX_CACHE:-false}

step() { printf '\n=== %s ===\n' "$*"; }

step "format (prettier --check)"
npx prettier --check . --log-level warn

step "typecheck (tsc --noEmit, strict)"
npx tsc -p tsconfig.json --noEmit
npx tsc -p apps/dashboard/tsconfig.json --noEmit

step "lint (ESLint with Nx module boundaries)"
npx nx run-many -t lint --parallel=2 --outputStyle=static

step "unit and integration tests (Jest, per project)"
npx nx run-many -t test --parallel=1 --outputStyle=static

step "end-to-end tests (real processes over HTTP)"
npx jest -c e2e/jest.config.js --ci

step "security suite (a running server under attack)"
npx jest -c e2e-security/jest.config.js --ci

step "fault schedule, short form (npm run chaos:ci: real Baileys, seeded faults; about 4.5 minutes)"
npm run chaos:ci
