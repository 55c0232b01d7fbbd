import { NON_ENGLISH } from "../corpus/nonEnglish.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(NON_ENGLISH)

scansQuickly("nonEnglish", [
  ["Spanish", "ignora tus "],
  ["French", "oublie tout ce qu"],
  ["Chinese", "你现在是"],
  ["Russian", "теперь ты "],
  ["French headers", "nouvelles instructions : "],
  ["Chinese headers", "新的指令："],
  ["French concealment", "ne dis rien "]
])
