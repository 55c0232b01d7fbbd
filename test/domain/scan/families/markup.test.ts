import { MARKUP } from "../corpus/markup.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(MARKUP)

scansQuickly("markup", [
  ["open comments", "<!-- "],
  ["comments to the model", "<!-- to the agent "],
  ["open scripts", "<script "],
  ["hidden elements", "<span hidden "],
  ["hidden styles", "<p style=display:none "],
  ["refresh tags", "<meta http-equiv=refresh "]
])
