// `npm run bench`: every benchmark, each a table with ratios against a baseline measured in the same run.
// The machine is small and noisy, so every figure is a median (or a stated percentile) of many runs.
import { runAtomsBench } from "./atoms.js"
import { runColdRecallBench } from "./coldRecall.js"
import { runColdStartBench } from "./coldStart.js"
import { runConsolidationBench } from "./consolidation.js"
import { runDurableAddBench } from "./durableAdd.js"
import { runEpisodesFoldBench } from "./episodesFold.js"
import { runEvalRecallBench } from "./evalRecall.js"
import { runHttpBench } from "./http.js"
import { runPostgresBench } from "./postgres.js"
import { runRecallBench } from "./recall.js"
import { runRpBench } from "./rp.js"
import { runScannerBench } from "./scanner.js"

console.log(
  `# tiered-memory benchmarks (${new Date().toISOString()}, node ${process.version}, ` +
    `${(await import("node:os")).cpus().length} cores)\n`
)
console.log(await runDurableAddBench())
// next to the durable add: what the scan costs a write, and what it refuses
console.log(await runScannerBench())
console.log(runColdStartBench())
console.log(await runRpBench())
console.log(await runConsolidationBench())
console.log(await runHttpBench())
console.log(await runRecallBench())
console.log(await runAtomsBench())
console.log(await runEpisodesFoldBench())
console.log(await runColdRecallBench())
console.log(await runEvalRecallBench())
console.log(await runPostgresBench())
