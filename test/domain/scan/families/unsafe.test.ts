import { UNSAFE } from "../corpus/unsafe.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(UNSAFE)

scansQuickly("unsafe", [
  ["tees", "curl x | tee "],
  ["sudo users", "| sudo -u "],
  ["paths run", "curl -o a && /"],
  ["exec calls", "exec("],
  ["saved downloads run", "curl -o a && "]
])
