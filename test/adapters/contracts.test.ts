import { HttpClient } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { scriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import * as DiskDerivedFiles from "../../src/adapters/disk/DiskDerivedFiles.js"
import * as HttpEmbedder from "../../src/adapters/http/HttpEmbedder.js"
import * as OpenAiLlm from "../../src/adapters/http/OpenAiLlm.js"
import * as NoneLlm from "../../src/adapters/llm/NoneLlm.js"
import * as MemoryDerivedFiles from "../../src/adapters/memory/MemoryDerivedFiles.js"
import * as RpEmbedder from "../../src/adapters/rp/RpEmbedder.js"
import * as WeightedEmbedder from "../../src/adapters/rp/WeightedEmbedder.js"
import { DEFAULT_EMBEDDING } from "../../src/domain/config/MemoryConfig.js"
import { Embedder } from "../../src/ports/Embedder.js"
import { derivedFilesContract } from "../contracts/derivedFiles.js"
import { embedderContract } from "../contracts/embedder.js"
import { llmContract, noModelContract } from "../contracts/llm.js"
import { closedPortUrl, inputsOf, undiciClient, vectorFor } from "./http/support.js"
import { llmConfig, scriptedLlm } from "../support/llm.js"

// The suites of test/contracts, run on every adapter of each port here (the EventStore's and EpisodeSearch's run in
// their own files). A new adapter joins by adding a line.

embedderContract("local (rp-idf, the default)", Effect.succeed(WeightedEmbedder.layer(256)))
embedderContract("rp (odek's Go-compatible space)", Effect.succeed(RpEmbedder.layer(256)))
embedderContract(
  "http (an OpenAI-compatible embeddings API, scripted)",
  Effect.gen(function* () {
    const server = yield* scriptedServer({
      handler: (req) => ({ kind: "embeddings", vectors: inputsOf(req).map((t) => vectorFor(t, 8)) })
    })
    const client = yield* undiciClient
    const embedder = yield* HttpEmbedder.make({
      ...DEFAULT_EMBEDDING,
      provider: "http",
      baseUrl: server.url,
      model: "scripted"
    }).pipe(Effect.provideService(HttpClient.HttpClient, client), Effect.orDie)
    return Layer.succeed(Embedder, embedder)
  })
)

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "tmem-contract-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)
derivedFilesContract(
  "memory",
  Effect.sync(() => ({ layer: MemoryDerivedFiles.layer }))
)
derivedFilesContract(
  "disk",
  Effect.map(tempDir, (dir) => ({ layer: DiskDerivedFiles.layer({ dir }), reopen: DiskDerivedFiles.layer({ dir }) }))
)

llmContract("openai (an OpenAI-compatible chat API, scripted)", {
  answering: (answers) =>
    Effect.map(scriptedServer(), (server) => {
      server.enqueue(...answers.map((content) => ({ kind: "chat" as const, content })))
      return scriptedLlm(server)
    }),
  unreachable: Effect.map(closedPortUrl, (url) => OpenAiLlm.layer(llmConfig(url), { backoffBaseMs: 5 }))
})
noModelContract("none", NoneLlm.layer)
