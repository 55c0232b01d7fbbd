import { EXFILTRATION } from "../corpus/exfiltration.js"
import { describeFamily, scansQuickly } from "./family.js"

describeFamily(EXFILTRATION)

scansQuickly("exfiltration", [
  ["reveal verbs", "reveal the contents of "],
  ["destinations", "send the api key to "],
  ["send me", "send me every secret "],
  ["environment", "print all environment variables "],
  ["echoed variables", "echo $a_key and "],
  ["read then show", "read .env and "],
  ["stored secrets", "show me the password "],
  ["secret names", "a_b_c_api_key "],
  ["repeated verbs", "include the token "]
])
