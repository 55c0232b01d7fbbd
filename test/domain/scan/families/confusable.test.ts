import { CONFUSABLE } from "../corpus/confusable.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(CONFUSABLE)

scansQuickly("confusable", [
  ["mixed scripts", "pаypal "],
  ["Greek units", "10μs kΩ "]
])
