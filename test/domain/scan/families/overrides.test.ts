import { OVERRIDES } from "../corpus/overrides.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(OVERRIDES)

scansQuickly("overrides", [
  ["standing orders", "from now on, always "],
  ["answer markers", "in all future responses, "],
  ["exceptions", "ignore all instructions "],
  ["the user's request", "whatever the user asks, "],
  ["announced instructions", "new instructions: "],
  ["voided rules", "the rules you were given "],
  ["told everything", "everything you were told "],
  ["rankings", "prioritize this note over "],
  ["you are now", "you are now a "]
])
