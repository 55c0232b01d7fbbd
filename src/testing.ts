/**
 * tiered-memory for tests and simulations (`tiered-memory/testing`): a scripted OpenAI-compatible server to point the
 * model and embedder adapters at, and the demo's script. Kept out of the main entry, which is what production code
 * imports.
 */
export { demoHandler } from "./adapters/dev/demoScript.js"
export {
  scriptedServer,
  startScriptedServer,
  type Handler,
  type RecordedRequest,
  type Reply,
  type ScriptedServer
} from "./adapters/dev/ScriptedServer.js"
export * as ScriptedGuard from "./adapters/guard/ScriptedGuard.js"
