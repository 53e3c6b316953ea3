#!/usr/bin/env bash
# Regenerates docs/dashboard/*.png: every page at 1440×900 and 390×844, taken while the dashboard's
# end-to-end test drives a real server in headless Chromium (so the pages show real data).
set -euo pipefail
cd "$(dirname "$0")/../../.."
npm run build -w packages/dashboard --silent
PLINTH_DASHBOARD_SCREENSHOTS=docs/dashboard npx vitest run --project sqlite packages/server/test/dashboard.e2e.test.ts
ls -l docs/dashboard
