import { C2 } from "../corpus/c2.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(C2)

scansQuickly("c2", [
  ["URLs", "https://x.y/ "],
  ["checks", "check https://a.b/ "],
  ["tasking", "tasks at https://a.b/ "],
  ["polls", "poll https://a.b/ "],
  ["nodes", "you are node "]
])
