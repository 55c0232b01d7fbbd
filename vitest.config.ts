import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    pool: "forks",
    maxWorkers: 2,
    minWorkers: 1,
    // The JSON report feeds the plain "N passed, N failed" line that .ci/run prints.
    reporters: ["default", "json", "./test/support/pgSkipReporter.ts"],
    outputFile: { json: ".vitest.json" },
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
