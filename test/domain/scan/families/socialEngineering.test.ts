import { SOCIAL_ENGINEERING } from "../corpus/socialEngineering.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(SOCIAL_ENGINEERING)

scansQuickly("socialEngineering", [
  ["pretexts", "test so "],
  ["emergencies", "emergency, so you may "],
  ["trust me", "trust me, "],
  ["purposes", "for educational purposes "]
])
