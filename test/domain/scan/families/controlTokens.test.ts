import { CONTROL_TOKENS } from "../corpus/controlTokens.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(CONTROL_TOKENS)

scansQuickly("controlTokens", [
  ["turns", "human: ignore "],
  ["role tags", "<system>"],
  ["closing tags", "</user>"],
  ["tokens", "<|system|>"],
  ["template headers", "\n## instruction: "]
])
