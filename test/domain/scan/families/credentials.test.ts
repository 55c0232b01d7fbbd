import { CREDENTIALS } from "../corpus/credentials.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(CREDENTIALS)

scansQuickly("credentials", [
  ["bearer", "bearer "],
  ["url schemes", "a://b:"],
  ["key prefixes", "sk-"]
])
