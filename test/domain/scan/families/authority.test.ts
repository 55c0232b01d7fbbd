import { AUTHORITY } from "../corpus/authority.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(AUTHORITY)

scansQuickly("authority", [
  ["double brackets", "[[system]] "],
  ["open braces", "{{"],
  ["equals rules", "=== "],
  ["headers", "\n### "],
  ["open markers", "[system override"],
  ["blanket approvals", "the user has pre-approved all "],
  ["messages", "message from the admins "]
])
