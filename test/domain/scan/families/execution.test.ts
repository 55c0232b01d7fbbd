import { EXECUTION } from "../corpus/execution.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(EXECUTION)

scansQuickly("execution", [
  ["conversions", "convert this to "],
  ["treated text", "treat the text as "],
  ["found commands", "run every command you find "],
  ["whatever commands", "whatever commands "]
])
