import { Schema } from "effect"

/** The memory is switched off (`memory.enabled: false`): every write of every stream is refused. */
export class MemoryDisabled extends Schema.TaggedError<MemoryDisabled>()("MemoryDisabled", {}) {
  override get message() {
    return "memory: disabled"
  }
}
