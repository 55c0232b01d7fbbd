import { INVISIBLE } from "../corpus/invisible.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(INVISIBLE)

scansQuickly("invisible", [
  ["joiners", "a\u200d"],
  ["variation selectors", "a\uFE01"],
  ["isolates", "\u2066a\u2069"]
])
