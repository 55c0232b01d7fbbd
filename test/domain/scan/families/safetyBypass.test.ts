import { SAFETY_BYPASS } from "../corpus/safetyBypass.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(SAFETY_BYPASS)

scansQuickly("safetyBypass", [
  ["sandboxes", "disable the sandbox "],
  ["flags", "run --dangerously-x "],
  ["auto-approval", "auto-approve all "],
  ["pushes", "push to main "],
  ["permission", "never ask for permission "]
])
