import { Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as DiskDerivedFiles from "../../../src/adapters/disk/DiskDerivedFiles.js"
import * as MemoryDerivedFiles from "../../../src/adapters/memory/MemoryDerivedFiles.js"
import * as LocalEpisodeSearch from "../../../src/adapters/search/LocalEpisodeSearch.js"
import { DerivedFiles } from "../../../src/ports/DerivedFiles.js"
import { episodeSearchContract } from "../../contracts/episodeSearch.js"

episodeSearchContract("local BM25 index, in-memory derived files", () => {
  const files = MemoryDerivedFiles.make()
  const layer = () => LocalEpisodeSearch.layer.pipe(Layer.provide(Layer.succeed(DerivedFiles, files)))
  return { layer: layer(), reopen: layer }
})

const dirs: Array<string> = []
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

episodeSearchContract("local BM25 index, derived files on disk", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-search-"))
  dirs.push(dir)
  const layer = () => LocalEpisodeSearch.layer.pipe(Layer.provide(DiskDerivedFiles.layer({ dir })))
  return { layer: layer(), reopen: layer }
})
