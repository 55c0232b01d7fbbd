import { BEACONS } from "../corpus/beacons.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(BEACONS)

scansQuickly("beacons", [
  ["markdown images", "![a](https://x/"],
  ["markdown links", "[a](https://x/?"],
  ["curl queries", "curl ?a="],
  ["curl paths", "curl https://x/$"],
  ["fetch verbs", "curl "],
  ["copies", "scp "],
  ["code fetches", "fetch("],
  ["DNS labels", "dig $("],
  ["redirects", "nc <"],
  ["data flags", "curl -d "],
  ["archives", "tar ~/.ssh "]
])
